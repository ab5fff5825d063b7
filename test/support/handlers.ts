import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { jest } from '@jest/globals';
import { DynamoDBDocumentClient, GetCommand, type DynamoDBDocumentClientResolvedConfig, type ServiceInputTypes, type ServiceOutputTypes } from '@aws-sdk/lib-dynamodb';
import type { AwsStub } from 'aws-sdk-client-mock';
import type { AirportIndex } from '../../src/airports/reference.js';
import { createFunctionClient } from '../../src/aws/function-clients.js';
import type { Clock } from '../../src/clock.js';
import { readConfig, type Config } from '../../src/config.js';
import { createAuthorizerHandler } from '../../src/keys/authorizer-handler.js';
import { createGetLegHandler } from '../../src/leg-by-id/handler.js';
import { createLegReader } from '../../src/leg-by-id/store.js';
import { createListHandler, createListRepository } from '../../src/listing/list-handler.js';
import type { RegistrySource } from '../../src/sources/index.js';

/**
 * The functions' handlers built through their factories, the way functions/<name>/handler.ts builds
 * them, on a document client of the test's own. Handler tests mock DynamoDBDocumentClient with
 * aws-sdk-client-mock (which answers for every instance); the repository is returned so a test can
 * clear the per-container cache between cases.
 */
/** The instant jest's fake timers hold (resetListHandler sets it), or the real time without them. */
const fakeTimersClock: Clock = () => Date.now();

export function testConfig(env: Record<string, string> = {}): Config {
  return readConfig(env);
}

export function testDocumentClient(): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
}

export function buildListHandler(
  options: { config?: Config; clock?: Clock; client?: DynamoDBDocumentClient; airports?: () => AirportIndex; registry?: RegistrySource } = {},
) {
  const config = options.config ?? testConfig();
  const repository = createListRepository(options.client ?? testDocumentClient(), config);
  const handler = createListHandler({
    repository,
    config,
    clock: options.clock ?? fakeTimersClock,
    ...(options.airports ? { airports: options.airports } : {}),
    ...(options.registry ? { registry: options.registry } : {}),
  });
  return { handler, repository, config };
}

/** The by-id function as functions/get-empty-leg/handler.ts builds it. */
export function buildGetLegHandler(options: { config?: Config; clock?: Clock; client?: DynamoDBDocumentClient; registry?: RegistrySource } = {}) {
  const config = options.config ?? testConfig();
  const readLeg = createLegReader(options.client ?? testDocumentClient(), config.legsTableName);
  return { handler: createGetLegHandler({ readLeg, clock: options.clock ?? fakeTimersClock, ...(options.registry ? { registry: options.registry } : {}) }), config };
}

export function buildAuthorizerHandler(options: { config?: Config; client?: DynamoDBDocumentClient } = {}) {
  const config = options.config ?? testConfig();
  return createAuthorizerHandler({
    client: options.client ?? testDocumentClient(),
    tableName: config.keysTableName,
    stage: config.stage,
  });
}

/** The functions' own client (their time budget) for `config`, as the handler files create it. */
export { createFunctionClient };

/**
 * Before each list handler test: no mocked answer but an empty change log head (no entry yet),
 * an empty listing cache, and the clock at `now` (timers left real).
 */
export function resetListHandler(
  ddb: AwsStub<ServiceInputTypes, ServiceOutputTypes, DynamoDBDocumentClientResolvedConfig>,
  repository: { clear(): void },
  now: Date,
): void {
  ddb.reset();
  ddb.on(GetCommand).resolves({});
  repository.clear();
  jest.useFakeTimers({ now, doNotFake: ['setTimeout', 'setImmediate', 'nextTick', 'queueMicrotask'] });
}
