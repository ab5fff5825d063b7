import type { AirportIndex } from '../airports/index.js';
import { withDeadline } from '../aws/deadline.js';
import type { Clock } from '../clock.js';
import { postEnquiry, type EnquiryDependencies } from '../enquiries/index.js';
import { AppError } from '../errors.js';
import { includeOf } from '../http/include.js';
import { flightLookupFor, getEmptyLeg, parseCurrency, parseLegId, type FlightLookup, type LegReader } from '../leg-by-id/index.js';
import { listWithRegistry, parseListQuery, type LegsRepository, type MatchMemo } from '../listing/index.js';
import type { RatesSource } from '../rates/index.js';
import type { SourceFacts } from '../kernel/source.js';
import { listSources, type ListSourcesDependencies } from '../sources/index.js';
import { createWatch, parseWatchId, readWatches, removeWatch, type WatchDependencies } from '../watches/index.js';
import type { Enquiry } from './summary.js';
import type { LegsApi } from './tools.js';

/** The use cases the MCP function calls (ports injected by functions/mcp/handler.ts). */
export interface UseCaseDependencies {
  repository: LegsRepository;
  readLeg: LegReader;
  /** The by-id route's flight lookup, for `group: "flight"` (none: SERVICE_UNAVAILABLE, as the route without one). */
  flight?: FlightLookup | undefined;
  /** GET /open/v1/sources's ports: the registry (also the listing's and the by-id route's stale sources and provenance) and the listing's count of legs per source. */
  sources: Omit<ListSourcesDependencies, 'now'>;
  watches: WatchDependencies;
  /** The enquiry POST's ports (src/enquiries/): none, and `enquire` answers SERVICE_UNAVAILABLE. */
  enquiries?: EnquiryDependencies | undefined;
  clock: Clock;
  airports?: () => AirportIndex;
  rates?: RatesSource;
  /** The sources registry's facts, for `kind`, `verifiedOnly` and `maxAgeHours`. */
  sourceFacts?: () => Promise<SourceFacts>;
}

/**
 * The tools' API in process: each operation is the REST route's use case with its parsing, for one
 * client, every DynamoDB call of the read routes under the request's database deadline (`deadlineMs`).
 */
export function inProcessApi(
  deps: UseCaseDependencies,
  memo: MatchMemo | undefined,
  request: { clientId: string; deadlineMs: number; traceId: string },
): LegsApi {
  const { clientId, deadlineMs } = request;
  const within = <T>(work: () => Promise<T>) => withDeadline(deadlineMs, work);
  const registry = deps.sources.registry;
  return {
    search: (params) => {
      const query = parseListQuery(params);
      const include = includeOf(params);
      const now = new Date(deps.clock());
      return within(() => listWithRegistry(query, include, { repository: deps.repository, now, memo, airports: deps.airports, rates: deps.rates, sources: deps.sourceFacts, registry }));
    },
    getLeg: (id, params) => {
      const legId = parseLegId(id);
      const currency = parseCurrency(params.currency);
      const include = includeOf(params);
      const flight = flightLookupFor(params.group, deps.flight);
      return within(() => getEmptyLeg(legId, { readLeg: deps.readLeg, now: () => new Date(deps.clock()), currency, rates: deps.rates, registry, include, flight }));
    },
    listSources: () => within(() => listSources({ ...deps.sources, now: deps.clock() })),
    listWatches: async () => ({ records: await within(() => readWatches(clientId, deps.watches)) }),
    createWatch: (body) => within(() => createWatch(clientId, body, deps.watches)),
    deleteWatch: (id) => {
      const watchId = parseWatchId(id);
      return within(() => removeWatch(clientId, watchId, deps.watches));
    },
    enquire: async (id, key, body) => {
      const legId = parseLegId(id);
      if (deps.enquiries === undefined) throw new AppError('SERVICE_UNAVAILABLE', 'Enquiries are not available here');
      const posted = await postEnquiry({ clientId, legId, key, body, traceId: request.traceId }, deps.enquiries);
      return { enquiry: (JSON.parse(posted.body) as { data: Enquiry }).data, replayed: posted.replayed };
    },
  };
}
