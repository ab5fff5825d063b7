/**
 * The headers CloudFront adds to every request it sends the API (lib/constructs/edge.ts): the
 * origin secret, which the authorizer requires when it is configured, and the viewer's address
 * and port (`198.51.100.10:46532`), by which it counts failed authentications.
 */
export const ORIGIN_SECRET_HEADER = 'x-origin-verify';
export const VIEWER_ADDRESS_HEADER = 'cloudfront-viewer-address';
