import { AppError, invalidParameter } from '../errors.js';
import { utcDate } from '../kernel/dates.js';
import type { EmptyLeg } from '../kernel/model.js';
import { sourceOf } from '../kernel/source.js';
import { GROUPS, offerOf, type FlightRecord } from '../flights/index.js';
import { listEmptyLegs, parseListQuery, type LegsRepository } from '../listing/index.js';
import { EMPTY_REGISTRY, settingsOf, sourceBlockFactsOf, staleSourceIds, type RegistrySource } from '../sources/index.js';
import type { Include } from '../kernel/leg/blocks.js';
import type { RatesSource } from '../rates/index.js';

/** The `group` query parameter of the by-id route: absent or `leg` (undefined), or `flight`. */
export function parseGroup(raw: string | undefined): 'flight' | undefined {
  if (raw === undefined || raw === '' || raw === 'leg') return undefined;
  if (raw !== 'flight') throw invalidParameter('group', `must be one of ${GROUPS.join(', ')}`);
  return 'flight';
}

/**
 * The lookup a request's `group` asks for: none for `leg` (or none given); with `flight`, `lookup`,
 * SERVICE_UNAVAILABLE where none is given. A value other than `leg` or `flight` is INVALID_PARAMETER.
 */
export function flightLookupFor(raw: string | undefined, lookup: FlightLookup | undefined): FlightLookup | undefined {
  if (parseGroup(raw) === undefined) return undefined;
  if (lookup === undefined) throw new AppError('SERVICE_UNAVAILABLE', 'Flights are not available here');
  return lookup;
}

/** The flight a listed leg belongs to (docs/api.md, "Flights"), as the listing's `group=flight` answers it. */
export type FlightLookup = (item: Readonly<Record<string, unknown>>, record: EmptyLeg, asked: FlightAsked) => Promise<FlightRecord>;

/** What the request asks besides the leg: `currency`, `include` (the record given carries its blocks already). */
export interface FlightAsked {
  currency: string | undefined;
  include: Include;
  now: Date;
}

/**
 * The lookup over the listing: a grouped search of the leg's route around its dates (15 days each
 * side of its start, today at the earliest); a leg the search does not group answers alone.
 */
export function createFlightLookup(deps: { repository: LegsRepository; rates?: RatesSource | undefined; registry?: RegistrySource | undefined }): FlightLookup {
  return async (item, record, { currency, include, now }) => {
    if (record.registration !== null && record.depAirportIcao !== null && record.arrAirportIcao !== null) {
      const today = utcDate(now);
      const query = parseListQuery({
        group: 'flight',
        depAirportCode: record.depAirportIcao,
        arrAirportCode: record.arrAirportIcao,
        depDate: record.startDate > today ? record.startDate : today,
        offsetDays: '15',
        size: '100',
        currency,
      });
      const read = deps.registry === undefined ? undefined : await deps.registry();
      const registry = () => Promise.resolve(read ?? EMPTY_REGISTRY);
      const page = await listEmptyLegs(query, {
        repository: deps.repository,
        now,
        rates: deps.rates,
        registry: deps.registry && registry,
        staleSources: read === undefined ? undefined : staleSourceIds(read, now.getTime()),
        include,
        blockSources: () => Promise.resolve({ sourceFacts: (id: string) => sourceBlockFactsOf(read ?? EMPTY_REGISTRY, id), registryRead: read ?? EMPTY_REGISTRY }),
      });
      const flight = (page.records as FlightRecord[]).find((r) => r.offers.some((o) => o.id === record.id));
      if (flight !== undefined) return flight;
    }
    const registry = await deps.registry?.();
    const source = sourceOf(item);
    const settings = registry === undefined ? undefined : settingsOf(registry, source);
    const confirmed = typeof item.confirmedAt === 'number' ? item.confirmedAt : Number.NaN;
    const facts = { id: record.id, source, kind: settings?.kind ?? 'unknown', verified: settings?.verified ?? false, confirmedAt: confirmed, euros: null };
    const offer = offerOf(facts, record.price ?? Number.NaN, record.currency ?? '');
    const converted = (record as EmptyLeg & { convertedPrice?: unknown }).convertedPrice;
    return { ...record, offerCount: 1, offers: [converted === undefined ? offer : { ...offer, convertedPrice: converted } as typeof offer] };
  };
}
