import { createFunctionClient } from '../../src/aws/function-clients.js';
import { functionConfig } from '../../src/config.js';
import { createListRepository } from '../../src/listing/list-handler.js';
import { listedIdsOfSource } from '../../src/listing/index.js';
import { createSourcesStore } from '../../src/sources/index.js';
import { createSweepHandler } from '../../src/sweep/handler.js';
import { createSweepStore } from '../../src/sweep/index.js';

/** The minute's schedule (src/function-table.ts): expired legs and stale sources told to the feed and the watches (src/sweep/sweep.ts). */
const config = functionConfig();
const client = createFunctionClient(config);
// A source's legs come from the listing snapshot and the change log's delta, as the listing reads them (a flip is rare).
const repository = createListRepository(client, { legsTableName: config.legsTableName, listingCacheTtlSeconds: 60, clock: config.clock });
const sources = createSourcesStore(client, config.legsTableName);
export const handler = createSweepHandler({
  store: createSweepStore(client, config.legsTableName),
  registry: () => sources.read(),
  legsOfSource: (source, now) => listedIdsOfSource(repository, now, source),
  stage: config.stage,
  now: config.clock,
});
