import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { withDeadline } from '../../src/aws/deadline.js';
import { documentClient } from '../../src/aws/function-clients.js';
import { functionConfig } from '../../src/config.js';
import { gzipResponse } from '../../src/http/compression.js';
import { successResponse } from '../../src/http/envelope.js';
import { httpEnvelope, requireApiKey, traceIdOf } from '../../src/http/middleware.js';
import { ROUTES } from '../../src/http/routes.js';
import { withChangeAwareCache } from '../../src/legs/change-aware-cache.js';
import { createJournalSource } from '../../src/legs/journal.js';
import { listEmptyLegs } from '../../src/legs/list-legs.js';
import { MatchMemo } from '../../src/legs/match-memo.js';
import { parseListQuery } from '../../src/legs/query.js';
import { createLegsRepository, withBucketCache } from '../../src/legs/repository.js';
import { invocationDeadlineMs } from '../../src/time-budget.js';

/** GET /open/v1/empty-legs: parse the query, run the listing, wrap the page in the envelope. */
export const REQUIRED_SCOPE = ROUTES.listEmptyLegs.scope;

const config = functionConfig();
const tableRepository = createLegsRepository(documentClient, config.legsTableName);
/**
 * The change-aware listing cache (src/legs/change-aware-cache.ts): checks the change journal at most
 * once a second, re-reads everything at the latest every LISTING_CACHE_TTL_SECONDS; 0 turns it off.
 */
export const repository =
  config.listingCacheTtlSeconds > 0
    ? withChangeAwareCache(tableRepository, createJournalSource(documentClient, config.legsTableName), {
        ceilingMs: config.listingCacheTtlSeconds * 1000,
      })
    : withBucketCache(tableRepository, 0);
/** Ordered matches of recent queries; only useful (and only kept) when bucket reads are cached. */
const memo = config.listingCacheTtlSeconds > 0 ? new MatchMemo() : undefined;

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(gzipResponse())
  .use(httpEnvelope())
  .use(requireApiKey(REQUIRED_SCOPE))
  .handler(async (event, context) => {
    const query = parseListQuery(event.queryStringParameters);
    // Every DynamoDB call of the listing shares the function's database deadline; a missed one
    // is a TimeoutError, which the envelope maps to SERVICE_UNAVAILABLE.
    const page = await withDeadline(invocationDeadlineMs('listEmptyLegs', context), () =>
      listEmptyLegs(query, { repository, now: new Date(), memo }),
    );
    return successResponse(page, traceIdOf({ context }));
  });
