import { airportReference, type Airport } from '../../src/airports/reference.js';

/**
 * The demo's airports, drawn from the airport reference (src/airports/, docs/airports.md): the
 * well-known business-aviation airports below first, spread over six continents, then the
 * reference's other large airports that have both codes (in ICAO order) for larger data sets.
 * Everything about an airport (name, city, country, coordinates, time zone) is the reference's;
 * this file only chooses which.
 */
const FEATURED_ICAO = (
  'KTEB KVNY KHPN KPBI KOPF KLAS KASE KDAL KBED KPWK KAPA KSDL KSJC CYYZ CYVR MMSD MMUN TNCM TFFJ MYNN ' +
  'SBGR SBSP SAEZ SCEL SKBO EGLF EGGW EGKB LFPB LFMN LFMD LSGG LSZH LSZS LIML LIRA LEMD LEPA LEIB EDDM ' +
  'LOWW EHAM EKCH LGMK LMML LTFM EIDW LPPT OMDB OMDW OMAD OTHH OERK LLBG VHHH WSSL RJTT RKSS VTBD VIDP ' +
  'VRMM FALA FACT HKJK GMMX HECA FIMP YSSY YSBK YMML NZAA NZQN'
).split(' ');

/** How many airports the default demo uses (the featured ones). */
export const FEATURED_AIRPORTS = FEATURED_ICAO.length;

/** An airport as a feed names it: the reference's airport, and the city a feed writes for it. */
export interface DemoAirport extends Airport {
  icao: string;
  iata: string;
  /** The municipality's first part (`Luton, Bedfordshire` -> `Luton`), else the airport's name. */
  city: string;
}

function toDemo(a: Airport): DemoAirport {
  if (a.icao === null || a.iata === null) throw new Error(`demo airport ${a.icao ?? a.iata}: needs both codes`);
  return { ...a, icao: a.icao, iata: a.iata, city: a.municipality?.split(',')[0]!.trim() || a.name };
}

let all: DemoAirport[] | undefined;

/** The first `count` demo airports: the featured ones, then other large airports. */
export function demoAirports(count: number = FEATURED_AIRPORTS): DemoAirport[] {
  if (all === undefined) {
    const reference = airportReference();
    const featured = FEATURED_ICAO.map((icao) => {
      const a = reference.byCode(icao);
      if (!a) throw new Error(`demo airport ${icao} is not in the airport reference`);
      return a;
    });
    const chosen = new Set(featured);
    const more = reference.airports
      .filter((a) => a.size === 'L' && a.icao !== null && a.iata !== null && !chosen.has(a))
      .sort((a, b) => (a.icao! < b.icao! ? -1 : 1));
    all = [...featured, ...more].map(toDemo);
  }
  return all.slice(0, Math.max(0, count));
}

/** How many airports demoAirports can give. */
export function demoAirportCount(): number {
  return demoAirports(Infinity).length;
}
