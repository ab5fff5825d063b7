import { readFileSync } from 'node:fs';
import { parseImportText } from '../../src/loading/import/index.js';

/** A valid import record with every field, and helpers to vary it, for the import format's tests. */
export const TODAY = '2026-11-21';
export const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

/** A valid record with every field. */
export const BASE = {
  id: 'LEG-1',
  startDate: '2026-12-10',
  endDate: '2026-12-12',
  depCityName: 'Paris',
  depAirportName: 'Paris-Le Bourget Airport',
  depAirportIcao: 'LFPB',
  depAirportIata: 'LBG',
  depCountryName: 'France',
  depCountryCode: 'FR',
  arrCityName: 'Geneva',
  arrAirportName: 'Geneva Airport',
  arrAirportIcao: 'LSGG',
  arrAirportIata: 'GVA',
  arrCountryName: 'Switzerland',
  arrCountryCode: 'CH',
  airlineName: 'Riviera Aviation',
  aircraftModelName: 'Cessna Citation CJ4',
  aircraftType: 'Light Jet',
  registration: 'F-HCJF',
  aircraftImg: 'https://images.example.com/cj4.jpg',
  makeYear: 2016,
  renovateYear: 2022,
  seatNum: 8,
  price: 6900.5,
  currency: 'EUR',
  amenities: [{ amenityType: 'wifi', amenityName: 'Wi-Fi', amenityDesc: 'Ka-band internet' }],
  listed: true,
  blocked: false,
  depTimezone: 'Europe/Paris',
};
export type Patch = Record<string, unknown>;

export const NULLABLE = [
  'depAirportName', 'depAirportIcao', 'depAirportIata', 'depCountryName', 'depCountryCode',
  'arrAirportName', 'arrAirportIcao', 'arrAirportIata', 'arrCountryName', 'arrCountryCode',
  'airlineName', 'aircraftModelName', 'aircraftType', 'registration', 'aircraftImg',
  'makeYear', 'renovateYear', 'seatNum', 'price', 'currency',
];

/** BASE with `patch` applied; a value of undefined removes the field. */
export function record(patch: Patch = {}): Record<string, unknown> {
  const r: Record<string, unknown> = { ...BASE, ...patch };
  for (const [k, v] of Object.entries(patch)) if (v === undefined) delete r[k];
  return r;
}

export function errorsOf(patch: Patch): string[] {
  return parseImportText(JSON.stringify([record(patch)]), { today: TODAY }).errors.map((e) => e.message);
}
