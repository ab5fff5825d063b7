import type { EmptyLeg } from '../kernel/model.js';
import { withConvertedPrice, type RateSet } from '../rates/index.js';
import type { Flight } from './flights.js';
import { offerOf, type Offer } from './offers.js';

/** A flight's record: its best offer's record, then `offerCount` and `offers` (each with `convertedPrice` when `currency` is asked). */
export type FlightRecord<R extends EmptyLeg = EmptyLeg> = R & { offerCount: number; offers: Offer[] };

export function flightRecord<R extends EmptyLeg>(record: R, flight: Flight, currency: string | undefined, rates: RateSet | undefined): FlightRecord<R> {
  const offers = flight.offers.map((entry, i) => {
    const offer = offerOf(flight.facts[i]!, entry.price, entry.currency);
    if (currency === undefined) return offer;
    const { convertedPrice } = withConvertedPrice({ price: offer.price, currency: offer.currency } as EmptyLeg, currency, rates);
    return { ...offer, convertedPrice };
  });
  return { ...record, offerCount: offers.length, offers };
}
