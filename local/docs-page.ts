import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OPENAPI_DOCUMENT_JSON } from '../src/contract/openapi-document.js';
import { requestTarget } from './edges.js';

/**
 * The reference page of `npm start`, at `/docs`: Redoc (the `redoc` package's standalone bundle,
 * served from node_modules at `/docs/redoc.standalone.js`) rendering the OpenAPI document, which is
 * embedded in the page. Every asset comes from this server: the page links no font, CDN or other
 * origin, and its Content-Security-Policy forbids loading anything from elsewhere.
 */
export const DOCS_PATH = '/docs';
const BUNDLE_PATH = `${DOCS_PATH}/redoc.standalone.js`;

let bundle: Buffer | undefined;
function redocBundle(): Buffer {
  bundle ??= readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'));
  return bundle;
}

/** The HTML of the page; the document is embedded (as JSON, with `<` escaped). */
export function docsHtml(): string {
  const spec = OPENAPI_DOCUMENT_JSON.replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Empty-leg listing API: reference</title>
<style>body { margin: 0; padding: 0; font-family: system-ui, sans-serif; }</style>
</head>
<body>
<div id="redoc"></div>
<script src="${BUNDLE_PATH}"></script>
<script>
Redoc.init(${spec}, {
  expandResponses: '200,400,401',
  hideDownloadButton: false,
  disableSearch: false,
  theme: { typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' }, code: { fontFamily: 'ui-monospace, monospace' } } }
}, document.getElementById('redoc'));
</script>
</body>
</html>
`;
}

/** Everything the page may load comes from this origin (Redoc's search worker runs from a blob). */
const CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "worker-src 'self' blob:",
  "connect-src 'self'",
].join('; ');

/**
 * Serves `/docs` and its bundle; returns false for any other path (the API gateway handles it).
 */
export function serveDocs(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  // The gateway answers a target that is no URL (in the envelope); never throw on one here.
  const path = requestTarget(req.url)?.rawPath;
  if (path === undefined) return false;
  if (path === DOCS_PATH || path === `${DOCS_PATH}/`) {
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : docsHtml());
    return true;
  }
  if (path === BUNDLE_PATH) {
    res.writeHead(200, {
      'content-type': 'text/javascript; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'cache-control': 'public, max-age=3600',
    });
    res.end(req.method === 'HEAD' ? undefined : redocBundle());
    return true;
  }
  return false;
}
