import type { StoredLeg } from '../../src/kernel/leg-item.js';

/**
 * A stored leg for tests: every nullable field null, listed and unblocked, in UTC, London to Nice
 * with no airports. Tests pass what they assert on; nothing else carries meaning.
 */
export function storedLeg(fields: Partial<StoredLeg> & Pick<StoredLeg, 'id' | 'startDate' | 'endDate'>): StoredLeg {
  return {
    depCityName: 'London',
    depAirportName: null,
    depAirportIcao: null,
    depAirportIata: null,
    depCountryName: null,
    depCountryCode: null,
    arrCityName: 'Nice',
    arrAirportName: null,
    arrAirportIcao: null,
    arrAirportIata: null,
    arrCountryName: null,
    arrCountryCode: null,
    airlineName: null,
    aircraftModelName: null,
    aircraftType: null,
    registration: null,
    aircraftImg: null,
    makeYear: null,
    renovateYear: null,
    seatNum: null,
    price: null,
    currency: null,
    amenities: [],
    listed: true,
    blocked: false,
    depTimezone: 'UTC',
    ...fields,
  };
}

/** A stored leg whose index entry has every route field: Farnborough (EGLF/FAB, GB) to Nice (LFMN/NCE, FR), eight seats. */
export function routedLeg(fields: Parameters<typeof storedLeg>[0]): StoredLeg {
  return storedLeg({ depAirportIcao: 'EGLF', depAirportIata: 'FAB', depCountryCode: 'GB', arrAirportIcao: 'LFMN', arrAirportIata: 'NCE', arrCountryCode: 'FR', seatNum: 8, ...fields });
}
