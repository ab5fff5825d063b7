import type { DeserializeMiddleware, MiddlewareStack } from '@smithy/types';

/**
 * Lets a caller read a successful response's body itself, before the SDK deserializes it.
 *
 * The SDK turns a response body into objects in three passes: JSON.parse, its schema walk over
 * every attribute value, then (the document client) a copy of every item into plain values. For a
 * Query that returns thousands of small index entries, those passes are most of the CPU a cold
 * container spends (docs/performance.md, "Cold cache"). `readRawBody` adds a middleware to one
 * command's stack, inside the SDK's deserializer: on a 2xx response it collects the body, hands the text to
 * `read`, and gives the deserializer what `read` returns instead (the same document with the bulky
 * part taken out, so the SDK still reads `Count`, `LastEvaluatedKey` and the rest as usual).
 *
 * Everything else is the SDK's: signing, retries, time-outs, the deadline's abort, and error
 * responses, which pass through untouched. A client that never reaches the HTTP layer (a mock)
 * never calls `read`, and the command's output carries its items as usual.
 */
interface HttpResponseLike {
  statusCode: number;
  body: unknown;
}

function isHttpResponse(value: unknown): value is HttpResponseLike {
  return typeof value === 'object' && value !== null && typeof (value as { statusCode?: unknown }).statusCode === 'number';
}

/** A chunk as a Buffer, without copying its bytes. */
function asBuffer(chunk: Uint8Array | string): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk);
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

async function collect(body: unknown): Promise<Buffer> {
  if (body instanceof Uint8Array) return asBuffer(body);
  if (body === undefined || body === null) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) chunks.push(asBuffer(chunk));
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

const RAW_BODY_MIDDLEWARE = 'readRawBody';

export function readRawBody<I extends object, O extends object>(stack: MiddlewareStack<I, O>, read: (body: string) => string): void {
  const middleware: DeserializeMiddleware<I, O> = (next) => async (args) => {
    const out = await next(args);
    const response = out.response;
    if (!isHttpResponse(response) || response.statusCode < 200 || response.statusCode > 299) return out;
    const text = (await collect(response.body)).toString('utf8');
    response.body = Buffer.from(read(text), 'utf8');
    return out;
  };
  // `low`: inside the deserializer (same step, normal priority), so it sees the raw response.
  // `override`: the document client concatenates a command's stack twice; one copy runs.
  stack.add(middleware, { step: 'deserialize', priority: 'low', name: RAW_BODY_MIDDLEWARE, override: true });
}
