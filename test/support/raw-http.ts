import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

/**
 * HTTP/1.1 by hand over a raw socket, for requests that fetch and http clients refuse to send or
 * normalise: raw bytes in the request line, malformed percent-encoding, oversized heads, garbage.
 * Reads until the server closes the connection (send `Connection: close`, or a request the
 * server refuses), bounded by `timeoutMs`.
 */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything the server sent, as latin1 text. */
  raw: string;
}

export function rawExchange(port: number, request: string | Buffer, timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close from the server within ${timeoutMs} ms; got: ${Buffer.concat(chunks).toString('latin1').slice(0, 300)}`));
    }, timeoutMs);
    socket.on('data', (d: Buffer) => chunks.push(d));
    // The server may answer and close before the whole request is written (an oversized head):
    // a reset after an answer is not an error.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(request);
  });
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (let i = 0; i < 10_000; i++) {
    const eol = rest.indexOf('\r\n');
    if (eol < 0) break;
    const size = parseInt(rest.slice(0, eol), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
  return out;
}

export function parseResponse(raw: string): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`not an HTTP response (no end of head): ${JSON.stringify(raw.slice(0, 200))}`);
  const [statusLine, ...headerLines] = raw.slice(0, split).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1];
  if (!status) throw new Error(`bad status line: ${statusLine}`);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = raw.slice(split + 4);
  const body = Buffer.from(headers['transfer-encoding'] === 'chunked' ? dechunk(rest) : rest, 'latin1').toString('utf8');
  return { status: Number(status), headers, body, raw };
}

export async function rawRequest(port: number, request: string | Buffer, timeoutMs?: number): Promise<RawResponse> {
  return parseResponse(await rawExchange(port, request, timeoutMs));
}

/**
 * A GET with node:http, which (unlike fetch) decodes nothing: the status, the headers and the bytes
 * on the wire (a gzipped body stays gzipped, a 304 shows that it carried no byte).
 */
export function wireGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.end();
  });
}
