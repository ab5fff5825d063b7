import type { AirportIndex } from '../airports/index.js';
import { withDeadline } from '../aws/deadline.js';
import type { Clock } from '../clock.js';
import { getEmptyLeg, parseCurrency, parseLegId, type LegReader } from '../leg-by-id/index.js';
import { listEmptyLegs, parseListQuery, type LegsRepository, type MatchMemo } from '../listing/index.js';
import type { RatesSource } from '../rates/index.js';
import type { SourceFacts } from '../kernel/source.js';
import { listSources, type ListSourcesDependencies } from '../sources/index.js';
import { createWatch, parseWatchId, readWatches, removeWatch, type WatchDependencies } from '../watches/index.js';
import type { LegsApi } from './tools.js';

/** The use cases the MCP function calls (ports injected by functions/mcp/handler.ts). */
export interface UseCaseDependencies {
  repository: LegsRepository;
  readLeg: LegReader;
  /** GET /open/v1/sources's ports: the registry and the listing's count of legs per source. */
  sources: Omit<ListSourcesDependencies, 'now'>;
  watches: WatchDependencies;
  clock: Clock;
  airports?: () => AirportIndex;
  rates?: RatesSource;
  /** The sources registry's facts, for `kind`, `verifiedOnly` and `maxAgeHours`. */
  sourceFacts?: () => Promise<SourceFacts>;
}

/**
 * The tools' API in process: each operation is the REST route's use case with its parsing, for one
 * client, every DynamoDB call under the request's database deadline (`deadlineMs`).
 */
export function inProcessApi(deps: UseCaseDependencies, memo: MatchMemo | undefined, request: { clientId: string; deadlineMs: number }): LegsApi {
  const { clientId, deadlineMs } = request;
  const within = <T>(work: () => Promise<T>) => withDeadline(deadlineMs, work);
  return {
    search: (params) => {
      const query = parseListQuery(params);
      const now = new Date(deps.clock());
      return within(() => listEmptyLegs(query, { repository: deps.repository, now, memo, airports: deps.airports, rates: deps.rates, sources: deps.sourceFacts }));
    },
    getLeg: (id, currency) => {
      const legId = parseLegId(id);
      const code = parseCurrency(currency);
      return within(() => getEmptyLeg(legId, { readLeg: deps.readLeg, now: () => new Date(deps.clock()), currency: code, rates: deps.rates }));
    },
    listSources: () => within(() => listSources({ ...deps.sources, now: deps.clock() })),
    listWatches: async () => ({ records: await within(() => readWatches(clientId, deps.watches)) }),
    createWatch: (body) => within(() => createWatch(clientId, body, deps.watches)),
    deleteWatch: (id) => {
      const watchId = parseWatchId(id);
      return within(() => removeWatch(clientId, watchId, deps.watches));
    },
  };
}
