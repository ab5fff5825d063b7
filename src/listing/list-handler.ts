import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { airportReference, type AirportIndex } from '../airports/index.js';
import { withDeadline } from '../aws/deadline.js';
import { processClock, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import { listResponse } from '../http/envelope.js';
import { httpFunction, requireApiKey, traceIdOf, type HttpHandler } from '../http/middleware.js';
import { ROUTES } from '../routes.js';
import { invocationDeadlineMs } from '../time-budget.js';
import { withChangeAwareCache } from './change-aware-cache.js';
import { createChangeSource } from '../changes/index.js';
import { createChangeLogStore } from '../changes/index.js';
import { listWithRegistry } from './list-legs.js';
import { MatchMemo } from './match-memo.js';
import { parseListQuery } from './query.js';
import { createLegsRepository, type LegsRepository } from './repository.js';
import { withSnapshot } from './snapshot-read.js';
import type { RatesSource } from '../rates/index.js';
import type { SourceFacts } from '../kernel/source.js';
import type { RegistrySource } from '../sources/index.js';
import { includeOf } from '../http/include.js';

/** GET /open/v1/empty-legs (src/routes.ts): parse the query, run the listing, wrap the page in the envelope. */
export type ListConfig = Pick<Config, 'listingCacheTtlSeconds'>;

export interface ListHandlerDependencies {
  repository: LegsRepository;
  config: ListConfig;
  /** The request's clock (default: the system clock). */
  clock?: Clock;
  /** The airport reference for nearby searches (default: the bundled one, read on first use). */
  airports?: () => AirportIndex;
  /** The rates in force, for `currency` (default: none loaded). */
  rates?: RatesSource;
  /** The sources registry's facts, for `kind` and `verifiedOnly` (default: none registered). */
  sources?: () => Promise<SourceFacts>;
  /** The sources registry (a container's cached copy): its stale sources the listing leaves out, `include=provenance` and `group=flight` read it (default: none registered). */
  registry?: RegistrySource;
}

/**
 * The functions' legs repository: the table, its buckets read from the listing snapshot where it
 * serves, behind the change-aware cache, which follows the change log and re-reads everything at
 * the latest every LISTING_CACHE_TTL_SECONDS; 0 turns it off.
 */
export function createListRepository(
  client: DynamoDBDocumentClient,
  config: Pick<Config, 'legsTableName' | 'listingCacheTtlSeconds'> & Partial<Pick<Config, 'clock'>>,
): LegsRepository & { clear(): void } {
  const table = createLegsRepository(client, config.legsTableName);
  const log = createChangeSource(createChangeLogStore(client, config.legsTableName));
  return config.listingCacheTtlSeconds > 0
    ? withChangeAwareCache(withSnapshot(table, client, config.legsTableName, log), log, {
        ceilingMs: config.listingCacheTtlSeconds * 1000,
        ...(config.clock ? { clock: config.clock } : {}),
      })
    : { ...table, clear: () => undefined };
}

export function createListHandler({
  repository,
  config,
  clock = processClock,
  airports = airportReference,
  rates,
  sources,
  registry,
}: ListHandlerDependencies): HttpHandler {
  /** Ordered matches of recent queries; only useful (and only kept) when bucket reads are cached. */
  const memo = config.listingCacheTtlSeconds > 0 ? new MatchMemo() : undefined;
  return httpFunction({ gzip: true, conditional: true })
    .use(requireApiKey(ROUTES.listEmptyLegs.scope))
    .handler(async (event, context) => {
      const query = parseListQuery(event.queryStringParameters);
      const include = includeOf(event.queryStringParameters);
      // Every DynamoDB call of the listing shares the function's database deadline; a missed one
      // is a TimeoutError, which the envelope maps to SERVICE_UNAVAILABLE.
      const now = clock();
      const page = await withDeadline(invocationDeadlineMs('listEmptyLegs', context), () =>
        listWithRegistry(query, include, { repository, now: new Date(now), memo, airports, rates, sources, registry }),
      );
      return listResponse(page, traceIdOf({ context }));
    });
}
