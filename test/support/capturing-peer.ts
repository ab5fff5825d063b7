import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

/**
 * An HTTP peer on 127.0.0.1 that answers as DynamoDB does, one scripted answer per request (an
 * empty page when none is left), and keeps what each request carried: method, path, headers and
 * body, as they arrived on the wire.
 */
export interface Captured {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Answer {
  status: number;
  body: string;
}

export interface CapturingPeer {
  endpoint: string;
  port: number;
  /** The requests received so far, oldest first. */
  seen: Captured[];
  /** The answers still to give, in order. */
  answers: Answer[];
  /** Forgets what was seen and the answers not given. */
  reset(): void;
  close(): Promise<void>;
}

const EMPTY_PAGE: Answer = { status: 200, body: '{"Items":[],"Count":0}' };

export async function startCapturingPeer(): Promise<CapturingPeer> {
  const peer = { seen: [] as Captured[], answers: [] as Answer[] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      peer.seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const answer = peer.answers.shift() ?? EMPTY_PAGE;
      res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `req-${peer.seen.length}` });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return Object.assign(peer, {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    reset() {
      peer.seen.length = 0;
      peer.answers.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
