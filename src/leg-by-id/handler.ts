import { processClock, type Clock } from '../clock.js';
import { withDeadline } from '../aws/deadline.js';
import { recordResponse } from '../http/envelope.js';
import { httpFunction, requireApiKey, traceIdOf, type HttpHandler } from '../http/middleware.js';
import { ROUTES } from '../routes.js';
import { invocationDeadlineMs } from '../time-budget.js';
import { getEmptyLeg, parseCurrency, parseLegId } from './get-leg.js';
import type { RatesSource } from '../rates/index.js';
import type { RegistrySource } from '../sources/index.js';
import type { LegReader } from './store.js';
import { includeOf } from '../http/include.js';
import { flightLookupFor, type FlightLookup } from './flight.js';

export interface GetLegHandlerDependencies {
  readLeg: LegReader;
  /** The request's clock (default: the system clock). */
  clock?: Clock;
  /** The rates in force, for `currency` (default: none loaded). */
  rates?: RatesSource;
  /** The sources registry (a container's cached copy): a leg of a stale source is not listed, and `include=provenance` reads it (default: none registered). */
  registry?: RegistrySource;
  /** The flight lookup of `group=flight` (default: `group=flight` refused as unavailable). */
  flight?: FlightLookup;
}

/** GET /open/v1/empty-legs/{id}: parse the id, run the use case, answer the record in the envelope. */
export function createGetLegHandler({ readLeg, clock = processClock, rates, registry, flight }: GetLegHandlerDependencies): HttpHandler {
  return httpFunction({ gzip: true, conditional: true })
    .use(requireApiKey(ROUTES.getEmptyLeg.scope))
    .handler(async (event, context) => {
      const id = parseLegId(event.pathParameters?.id);
      const currency = parseCurrency(event.queryStringParameters?.currency);
      const include = includeOf(event.queryStringParameters);
      const asked = flightLookupFor(event.queryStringParameters?.group, flight);
      const record = await withDeadline(invocationDeadlineMs('getEmptyLeg', context), () =>
        getEmptyLeg(id, { readLeg, now: () => new Date(clock()), currency, rates, registry, include, flight: asked }),
      );
      return recordResponse(record, traceIdOf({ context }));
    });
}
