/**
 * The airport reference data file, written by `npm run airports` (docs/airports.md: its source,
 * version, license and date). One airport a row, its columns in AIRPORT_COLUMNS order; the time
 * zone is an index into `zones`, the country name is `countries[countryCode]`.
 */
export const AIRPORT_DATA_FILE = 'src/airports/data/airports.json';

/** L large, M medium, S small (OurAirports' airport types). */
export type AirportSize = 'L' | 'M' | 'S';

export const AIRPORT_COLUMNS = ['icao', 'iata', 'name', 'municipality', 'countryCode', 'latitude', 'longitude', 'zone', 'size'] as const;

export type AirportRow = [
  icao: string | null,
  iata: string | null,
  name: string,
  municipality: string | null,
  countryCode: string,
  latitude: number,
  longitude: number,
  zone: number,
  size: AirportSize,
];

export interface AirportDataFile {
  source: {
    dataset: string;
    package: string;
    license: string;
    /** The newest `updated_at` of the airports kept, `yyyy-MM-dd`. */
    dataDate: string;
    timeZones: string;
    regenerate: string;
  };
  columns: string[];
  /** ISO 3166-1 alpha-2 code -> the dataset's English country name. */
  countries: Record<string, string>;
  /** IANA zone names, indexed by the rows' `zone`. */
  zones: string[];
  airports: AirportRow[];
}
