import type { LegReader } from './store.js';
import type { FlightLookup } from './flight.js';

import { AppError, invalidParameter } from '../errors.js';

import { ID_PATTERN } from '../loading/index.js';
import type { EmptyLeg } from '../kernel/model.js';
import { listedRecord } from '../kernel/listed.js';
import { factsOfItem, NO_INCLUDE, unregisteredSource, withBlocks, type Include, type SourceFacts } from '../kernel/leg/blocks.js';
import { knowsCurrency, withConvertedPrice, type RatesSource } from '../rates/index.js';
import { isStale, sourceBlockFactsOf, type RegistrySource } from '../sources/index.js';
import { sourceOf } from '../kernel/source.js';

/**
 * GET /open/v1/empty-legs/{id}: the leg if the unfiltered listing would list it now, else NOT_FOUND
 * with one message whatever the reason. One strongly consistent GetItem, no cache (docs/api.md).
 */

/** A leg id as the import format defines it (src/loading/import/reference-data.ts): 1-64 of A-Z a-z 0-9 _ -. */
export const LEG_ID_RULE = 'must be 1-64 of A-Z a-z 0-9 _ -';

/** The `{id}` path parameter, validated: a malformed id is INVALID_PARAMETER, never a read. */
export function parseLegId(raw: string | undefined): string {
  if (raw === undefined || !ID_PATTERN.test(raw)) throw invalidParameter('id', LEG_ID_RULE);
  return raw;
}

/** The one message of every NOT_FOUND of this route: the same for every reason. */
export const LEG_NOT_FOUND_MESSAGE = 'No empty leg with this id is listed';

/** The `currency` query parameter (docs/api.md, "Prices"): absent, or the shape of an ISO 4217 code. */
export function parseCurrency(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^[A-Z]{3}$/.test(raw)) throw invalidParameter('currency', 'must be an ISO 4217 code of 3 capital letters, such as EUR');
  return raw;
}

/**
 * The use case: the leg if listed now, else NOT_FOUND (the same error for every reason); with
 * `currency`, its `convertedPrice` through the rates in force (a currency they do not know: INVALID_PARAMETER).
 */
export async function getEmptyLeg(
  id: string,
  deps: {
    readLeg: LegReader;
    now: () => Date;
    currency?: string | undefined;
    rates?: RatesSource | undefined;
    /** The sources registry (a container's cached copy): a leg of a stale source is not listed; `provenance` reads its source's entry. */
    registry?: RegistrySource | undefined;
    /** The blocks the record carries (`include`); `sourceFacts` overrides the registry for `provenance`. */
    include?: Include | undefined;
    sourceFacts?: (() => Promise<(id: string) => SourceFacts>) | undefined;
    /** With `group=flight`: the flight the leg belongs to (src/leg-by-id/flight.ts). */
    flight?: FlightLookup | undefined;
  },
): Promise<EmptyLeg> {
  const currency = deps.currency;
  const [item, rates, registry] = await Promise.all([deps.readLeg(id), currency === undefined ? undefined : deps.rates?.(), deps.registry?.()]);
  if (currency !== undefined && !knowsCurrency(rates ?? { date: '', rates: {} }, currency)) {
    throw invalidParameter('currency', `must be EUR or a currency of the reference rates in force${rates ? ` (${rates.date})` : ''}`);
  }
  const now = deps.now();
  const stale = item !== undefined && registry !== undefined && isStale(registry, sourceOf(item), now.getTime());
  const record = item === undefined || stale ? undefined : listedRecord(item, now);
  if (record === undefined) throw new AppError('NOT_FOUND', LEG_NOT_FOUND_MESSAGE);
  const priced = currency === undefined ? record : withConvertedPrice(record, currency, rates);
  const include = deps.include ?? NO_INCLUDE;
  let blocked = priced;
  if (include.size > 0) {
    const read = registry;
    const fromRegistry = read === undefined ? unregisteredSource : (source: string) => sourceBlockFactsOf(read, source);
    const sources = include.has('provenance') && deps.sourceFacts ? await deps.sourceFacts() : fromRegistry;
    blocked = withBlocks(priced, include, factsOfItem(item!), sources);
  }
  return deps.flight === undefined ? blocked : deps.flight(item!, blocked, { currency, include, now });
}
