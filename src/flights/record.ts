import type { EmptyLeg } from '../kernel/model.js';
import { withConvertedPrice, type RateSet } from '../rates/index.js';
import type { Flight } from './flights.js';
import { offerOf, type Offer } from './offers.js';

/** A flight's record: its best offer's record, then `offerCount` and `offers` (each with `convertedPrice` when `currency` is asked). */
export type FlightRecord<R extends EmptyLeg = EmptyLeg> = R & { offerCount: number; offers: Offer[] };

interface Made {
  record: EmptyLeg;
  currency: string | undefined;
  rates: RateSet | undefined;
  value: FlightRecord;
}

/** The last record made of each flight: the same flight, record, currency and rates give the same object (serialized once: src/http/envelope.ts). */
const made = new WeakMap<Flight, Made>();

export function flightRecord<R extends EmptyLeg>(record: R, flight: Flight, currency: string | undefined, rates: RateSet | undefined): FlightRecord<R> {
  const held = made.get(flight);
  if (held !== undefined && held.record === record && held.currency === currency && held.rates === rates) return held.value as FlightRecord<R>;
  const offers = flight.offers.map((entry, i) => {
    const offer = offerOf(flight.facts[i]!, entry.price, entry.currency);
    if (currency === undefined) return offer;
    const { convertedPrice } = withConvertedPrice({ price: offer.price, currency: offer.currency } as EmptyLeg, currency, rates);
    return { ...offer, convertedPrice };
  });
  const value = { ...record, offerCount: offers.length, offers };
  made.set(flight, { record, currency, rates, value });
  return value;
}
