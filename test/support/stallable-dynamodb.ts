import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { marshall } from '@aws-sdk/util-dynamodb';

/**
 * An HTTP peer on 127.0.0.1 that answers DynamoDB's GetItem (from `items`, by `keyHash`) and
 * UpdateItem (a usage counter's totals) until `stall()`: from then on it accepts connections and
 * requests and never answers, as a stalled database does, until `resume()`.
 */
export interface StallableDynamoDb {
  endpoint: string;
  /** Items by keyHash, as the table would hold them. */
  items: Map<string, Record<string, unknown>>;
  stall(): void;
  resume(): void;
  /** Requests received while stalled (never answered). */
  stalledRequests(): number;
  close(): Promise<void>;
}

export async function startStallableDynamoDb(): Promise<StallableDynamoDb> {
  const items = new Map<string, Record<string, unknown>>();
  const held = new Set<ServerResponse>();
  let stalled = false;
  let stalledRequests = 0;
  const answer = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const input = JSON.parse(body || '{}') as { Key?: { keyHash?: { S?: string } } };
    let out: unknown = {};
    if (target.endsWith('.GetItem')) {
      const item = items.get(input.Key?.keyHash?.S ?? '');
      out = item ? { Item: marshall(item, { removeUndefinedValues: true }) } : {};
    } else if (target.endsWith('.UpdateItem')) {
      out = { Attributes: marshall({ served: 1, refused: 0 }) };
    }
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(JSON.stringify(out));
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (stalled) {
        stalledRequests++;
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      answer(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    items,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
    },
    stalledRequests: () => stalledRequests,
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
