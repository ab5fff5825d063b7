import { processClock } from '../clock.js';
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { recursionDetectionMiddleware } from '@aws-sdk/core/client';
import { QueryCommand, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { HttpRequest } from '@smithy/core/protocols';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import type { HttpResponse, RequestSigner, RetryErrorType, SdkError, StandardRetryToken } from '@smithy/types';
import { sleep } from './backoff.js';

/**
 * A Query carried out the lean way: `LeanQueryCommand` is a QueryCommand (`client.send` takes it,
 * and a mocked client, aws-sdk-client-mock, matches it as one and answers it with `Items` as
 * usual), but a real client runs it without the SDK's middleware stack.
 *
 * The SDK spends about as much CPU on each call as Node spends on the HTTP exchange itself:
 * resolving its stack of a dozen middleware layers (twice over for a document-client command),
 * marshalling, its schema-driven serializer and deserializer, the endpoint rules. A cold container's
 * listing makes one call per Query page, two dozen at 20,000 legs (docs/performance.md, "Cold
 * cache"). For the listing's index reads, this module writes the request's JSON itself, signs it
 * with the client's own signer, sends it through the client's own HTTP handler, and hands the
 * response's text to `read`, which takes the items out (src/legs/index-page.ts) and returns the rest
 * (`Count`, `LastEvaluatedKey`, ...).
 *
 * What stays the SDK's, so a lean call keeps every guarantee a normal one has:
 * - the HTTP handler (src/aws/dynamodb.ts): keep-alive sockets, the connection and request time-outs
 *   of the time budget (src/time-budget.ts), the invocation deadline's abort (src/aws/deadline.ts);
 * - the credentials, region and endpoint the client resolved, and its SigV4 signer;
 * - the client's retry strategy (attempts, backoff, retry quota), with the SDK's own classification
 *   of errors (throttling, transient, server);
 * - errors as the SDK raises them: a `DynamoDBServiceException` named after DynamoDB's `__type`,
 *   with `$fault` and `$metadata` (status, request id, attempts), so src/aws/unavailable.ts and the
 *   envelope's mapper treat them the same.
 *
 * What it gives up: middleware added to the client's stack does not run for it (this project adds
 * none to the functions' client; the benchmark records calls at `send`, bench/consumed.ts).
 * The endpoint rules run without the credentials' account id: with one (AWS_ACCOUNT_ID; Lambda's
 * credentials carry none) the SDK would pick the account's endpoint, this the regional one.
 * test/handler/lean-query-signing.test.ts checks the signature with an independent signer (aws4)
 * and the endpoint against the SDK's.
 * Only what the listing's Query needs is supported: the expression values and the start key are
 * marshalled as the document client would; the output's `Items` are whatever `read` left.
 */
export type ReadBody = (body: string) => string;

const TARGET = 'DynamoDB_20120810.Query';
const CONTENT_TYPE = 'application/x-amz-json-1.0';

/** What the lean path reads of the client's resolved configuration. */
interface LeanQueryConfig {
  requestHandler: { handle(request: HttpRequest, options?: { abortSignal?: AbortSignal }): Promise<{ response: HttpResponse }> };
  region: () => Promise<string>;
  signer: () => Promise<RequestSigner>;
  endpointProvider: (params: Record<string, unknown>) => { url: URL };
  endpoint?: (() => Promise<{ protocol: string; hostname: string; port?: number; path: string }>) | undefined;
  isCustomEndpoint?: boolean;
  useFipsEndpoint: () => Promise<boolean>;
  useDualstackEndpoint: () => Promise<boolean>;
  retryStrategy: () => Promise<unknown>;
  systemClockOffset?: number;
}

interface RetryStrategyV2 {
  acquireInitialRetryToken(scope: string): Promise<StandardRetryToken>;
  refreshRetryTokenForRetry(token: StandardRetryToken, info: { error: unknown; errorType: RetryErrorType }): Promise<StandardRetryToken>;
  recordSuccess(token: StandardRetryToken): void;
}

interface WireOutput {
  Items?: Record<string, unknown>[];
  Count?: number;
  ScannedCount?: number;
  LastEvaluatedKey?: Record<string, unknown>;
  ConsumedCapacity?: QueryCommandOutput['ConsumedCapacity'];
}

/**
 * What each client's configuration resolves to, once: its endpoint, and its signer (the SDK makes a
 * signer per call, which derives the signing key anew each time; the signer asks the credential
 * provider for every request, so refreshed credentials are still picked up).
 */
interface Resolved {
  endpoint: Promise<URL>;
  signer: Promise<RequestSigner>;
}

const resolved = new WeakMap<object, Resolved>();

async function resolveEndpoint(config: LeanQueryConfig): Promise<URL> {
  if (config.isCustomEndpoint && config.endpoint) {
    const e = await config.endpoint();
    return new URL(`${e.protocol}//${e.hostname}${e.port ? `:${e.port}` : ''}${e.path}`);
  }
  const [region, fips, dualStack] = await Promise.all([config.region(), config.useFipsEndpoint(), config.useDualstackEndpoint()]);
  return config.endpointProvider({ Region: region, UseFIPS: fips, UseDualStack: dualStack }).url;
}

function resolve(config: LeanQueryConfig): Resolved {
  let r = resolved.get(config);
  if (!r) {
    const entry: Resolved = { endpoint: resolveEndpoint(config), signer: config.signer() };
    // A failure is not kept: the next call tries again.
    Promise.all([entry.endpoint, entry.signer]).catch(() => resolved.delete(config));
    resolved.set(config, entry);
    r = entry;
  }
  return r;
}

/** The Query's input as DynamoDB's JSON takes it: values and the start key marshalled. */
function wireQueryInput(input: QueryCommandInput): Record<string, unknown> {
  const { ExpressionAttributeValues: values, ExclusiveStartKey: startKey, ...rest } = input;
  return {
    ...rest,
    ...(values ? { ExpressionAttributeValues: marshall(values, { removeUndefinedValues: true }) } : {}),
    ...(startKey ? { ExclusiveStartKey: marshall(startKey, { removeUndefinedValues: true }) } : {}),
  };
}

type Chunk = Uint8Array | string;

function asBuffer(chunk: Chunk): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk);
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

interface Emitter {
  on(event: 'data', listener: (chunk: Chunk) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** The text of the HTTP handler's response body (Node's stream), by its events (cheaper than async iteration). */
function collect(body: Emitter): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (chunk) => chunks.push(asBuffer(chunk)));
    body.on('error', reject);
    body.on('end', () => resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')));
  });
}

function header(response: HttpResponse, name: string): string | undefined {
  const value = response.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The error an error response stands for, as the SDK would raise it. */
function serviceError(status: number, text: string, requestId: string | undefined): DynamoDBServiceException {
  let type = status >= 500 ? 'InternalServerError' : 'UnknownError';
  let message = `DynamoDB answered HTTP ${status}`;
  try {
    const parsed = JSON.parse(text) as { __type?: unknown; message?: unknown; Message?: unknown };
    if (typeof parsed.__type === 'string' && parsed.__type !== '') type = parsed.__type.slice(parsed.__type.lastIndexOf('#') + 1);
    const said = parsed.message ?? parsed.Message;
    if (typeof said === 'string') message = said;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  return new DynamoDBServiceException({
    name: type,
    message,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status, requestId },
  });
}

/** The SDK's classification of an error for its retry strategy. */
function retryErrorType(error: SdkError): RetryErrorType {
  if (isThrottlingError(error)) return 'THROTTLING';
  if (isTransientError(error)) return 'TRANSIENT';
  if (isServerError(error)) return 'SERVER_ERROR';
  return 'CLIENT_ERROR';
}

/**
 * The SDK's recursion-detection step, run on the lean request as the client's stack runs it on its
 * own: inside Lambda, the invocation's trace id (X-Amzn-Trace-Id) and its W3C trace context.
 */
const traceContext = recursionDetectionMiddleware()(() => Promise.resolve({ output: {}, response: undefined }), {});

interface Attempted {
  text: string;
  response: HttpResponse;
}

async function attempt(config: LeanQueryConfig, body: string, abortSignal: AbortSignal | undefined): Promise<Attempted> {
  const { endpoint, signer: signerPromise } = resolve(config);
  const url = await endpoint;
  const request = new HttpRequest({
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    method: 'POST',
    // As the SDK's JSON protocol does: a custom endpoint's path gets its trailing slash.
    path: url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`,
    headers: {
      host: url.host,
      'content-type': CONTENT_TYPE,
      'content-length': String(Buffer.byteLength(body)),
      'x-amz-target': TARGET,
    },
    body,
  });
  await traceContext({ input: {}, request });
  const signer = await signerPromise;
  const signed = await signer.sign(request, { signingDate: new Date(processClock() + (config.systemClockOffset ?? 0)) });
  const { response } = await config.requestHandler.handle(signed as HttpRequest, abortSignal ? { abortSignal } : {});
  const text = await collect(response.body as Emitter);
  if (response.statusCode < 200 || response.statusCode > 299) throw serviceError(response.statusCode, text, header(response, 'x-amzn-requestid'));
  return { text, response };
}

/** Sends `body` with the client's retry strategy, as the SDK's retry middleware does. */
async function withRetries(
  config: LeanQueryConfig,
  body: string,
  abortSignal: AbortSignal | undefined,
): Promise<Attempted & { attempts: number; totalRetryDelay: number }> {
  const strategy = (await config.retryStrategy()) as RetryStrategyV2;
  let token = await strategy.acquireInitialRetryToken('');
  let attempts = 0;
  let totalRetryDelay = 0;
  for (;;) {
    try {
      const done = await attempt(config, body, abortSignal);
      strategy.recordSuccess(token);
      return { ...done, attempts: attempts + 1, totalRetryDelay };
    } catch (err) {
      const error = (err instanceof Error ? err : new Error(String(err))) as SdkError;
      try {
        token = await strategy.refreshRetryTokenForRetry(token, { error, errorType: retryErrorType(error) });
      } catch {
        error.$metadata = { ...(error.$metadata ?? {}), attempts: attempts + 1, totalRetryDelay };
        throw error;
      }
      attempts = token.getRetryCount();
      const delay = token.getRetryDelay();
      totalRetryDelay += delay;
      if (delay > 0) await sleep(delay);
    }
  }
}

/** One lean Query: the request, its attempts, the response read by `read`. */
async function leanQuery(
  config: LeanQueryConfig,
  input: QueryCommandInput,
  read: ReadBody,
  abortSignal?: AbortSignal,
): Promise<{ output: QueryCommandOutput; response: HttpResponse }> {
  const { text, response, attempts, totalRetryDelay } = await withRetries(config, JSON.stringify(wireQueryInput(input)), abortSignal);
  const rest = JSON.parse(read(text)) as WireOutput;
  const output: QueryCommandOutput = {
    $metadata: { httpStatusCode: response.statusCode, requestId: header(response, 'x-amzn-requestid'), attempts, totalRetryDelay },
    Items: (rest.Items ?? []).map((item) => unmarshall(item as Parameters<typeof unmarshall>[0])),
    ...(rest.Count !== undefined ? { Count: rest.Count } : {}),
    ...(rest.ScannedCount !== undefined ? { ScannedCount: rest.ScannedCount } : {}),
    ...(rest.LastEvaluatedKey ? { LastEvaluatedKey: unmarshall(rest.LastEvaluatedKey as Parameters<typeof unmarshall>[0]) } : {}),
    ...(rest.ConsumedCapacity ? { ConsumedCapacity: rest.ConsumedCapacity } : {}),
  };
  return { output, response };
}

type ResolveArgs = Parameters<QueryCommand['resolveMiddleware']>;

/**
 * A Query the client runs the lean way (above): `read` gets the body of the successful response
 * once and returns it without the items it took.
 */
export class LeanQueryCommand extends QueryCommand {
  readonly #read: ReadBody;

  constructor(input: QueryCommandInput, read: ReadBody) {
    super(input);
    this.#read = read;
  }

  /** Called by `client.send`: a handler that skips the client's stack (`clientStack` is not used). */
  override resolveMiddleware(_clientStack: ResolveArgs[0], configuration: ResolveArgs[1], options?: ResolveArgs[2]): ReturnType<QueryCommand['resolveMiddleware']> {
    const config = configuration as unknown as LeanQueryConfig;
    const abortSignal = options?.abortSignal as AbortSignal | undefined;
    return () => leanQuery(config, this.input, this.#read, abortSignal);
  }
}
