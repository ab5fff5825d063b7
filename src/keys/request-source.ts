import { timingSafeEqual } from 'node:crypto';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../auth/edge.js';
import { routeKeyOf, ROUTES } from '../routes.js';

/** What the authorizer knows of a request besides its key. */
export interface RequestSource {
  /** The client's address (API Gateway's `requestContext.http.sourceIp`, or the viewer's behind CloudFront). */
  sourceAddress?: string | undefined;
}

/** A header of a v2 event by its lower-case name (lower-case in v2; matched case-insensitively). */
function headerOf(event: Pick<APIGatewayRequestAuthorizerEventV2, 'headers'>, lowerName: string): string | undefined {
  const headers = event.headers ?? {};
  const direct = headers[lowerName];
  if (direct !== undefined) return direct;
  const name = Object.keys(headers).find((h) => h.toLowerCase() === lowerName);
  return name === undefined ? undefined : headers[name];
}

/** The routes that also take the key as `Authorization: Bearer <key>` (what many MCP clients can only send). */
export const BEARER_ROUTE_KEYS: ReadonlySet<string> = new Set([ROUTES.mcp, ROUTES.mcpStream, ROUTES.mcpSession].map(routeKeyOf));
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The key of a v2 authorizer event: its `X-API-Key` header; on a Bearer route without one, an `Authorization: Bearer` token. */
export function apiKeyHeader(event: Pick<APIGatewayRequestAuthorizerEventV2, 'headers'> & { routeKey?: string | undefined }): string | undefined {
  const key = headerOf(event, 'x-api-key');
  if (key !== undefined || event.routeKey === undefined || !BEARER_ROUTE_KEYS.has(event.routeKey)) return key;
  return BEARER.exec(headerOf(event, 'authorization') ?? '')?.[1];
}

function sameSecret(presented: string | undefined, secret: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The viewer's address of a `CloudFront-Viewer-Address` value (its port cut off), or undefined. */
export function viewerAddress(value: string | undefined): string | undefined {
  const match = value === undefined ? null : /^\[?([0-9A-Fa-f:.]+?)\]?:\d{1,5}$/.exec(value.trim());
  return match?.[1];
}

/**
 * Where a request comes from, or `wrongOrigin` when the API is behind CloudFront (`originSecret`
 * given) and the request did not come through it: the address is then CloudFront's viewer
 * address, else API Gateway's `sourceIp`.
 */
export function requestSource(event: APIGatewayRequestAuthorizerEventV2, originSecret: string | undefined): RequestSource | 'wrongOrigin' {
  const sourceIp = event.requestContext?.http?.sourceIp;
  if (originSecret === undefined) return { sourceAddress: sourceIp };
  if (!sameSecret(headerOf(event, ORIGIN_SECRET_HEADER), originSecret)) return 'wrongOrigin';
  return { sourceAddress: viewerAddress(headerOf(event, VIEWER_ADDRESS_HEADER)) ?? sourceIp };
}
