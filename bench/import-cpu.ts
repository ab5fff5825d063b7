import { readFileSync } from 'node:fs';
import { AIRPORT_DATA_URL, AirportIndex, airportReference, airportsOf } from '../src/airports/reference.js';
import type { AirportDataFile } from '../src/airports/data-file.js';
import { parseImportText } from '../src/loading/import/index.js';
import { toStorageItem } from '../src/kernel/leg-item.js';
import { generateDemoRecords } from '../local/demo/index.js';
import { median } from './stats.js';

/**
 * What the airport checks cost a load (docs/performance.md, "Airport checks"): the CPU time of
 * reading `legs` records as `legs:load` reads an NDJSON file (parse, validate, storage items),
 * with the airport checks and without, in the same process, alternating, `rounds` times each.
 *
 * - With: the demo's records as feeds write them (codes, no zone), checked against a reference read
 *   from its file inside the measurement (what each command run pays), zones from the airports,
 *   empty fields filled.
 * - Without (the loader before the airport reference): the same records with each departure's zone
 *   written in, read against an empty reference with unknown codes allowed: no lookup finds
 *   anything, nothing is filled, the zone is the record's, as before.
 * The writes to DynamoDB, the same in both, are left out.
 */
export interface ImportCpuFigures {
  legs: number;
  /** Median CPU ms of one load with the checks (the reference read from its file included). */
  withChecksMs: number;
  withoutChecksMs: number;
  /** CPU ms of reading the reference file into an index, median (part of withChecksMs). */
  referenceLoadMs: number;
  ratio: number;
  /** Records filled from the reference in one load. */
  filled: number;
}

function cpuMs(run: () => void): number {
  const c0 = process.cpuUsage();
  run();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

export function measureImportCpu(options: { legs: number; rounds: number; today: string; seed?: number }): ImportCpuFigures {
  const records = generateDemoRecords({ today: options.today, count: options.legs, months: 12, airports: 200, seed: options.seed });
  const reference = airportReference();
  const zoneOf = (r: (typeof records)[number]) => {
    const code = r.depAirportIcao ?? r.depAirportIata;
    return (typeof code === 'string' ? reference.byCode(code)?.timeZone : undefined) ?? r.depTimezone;
  };
  const checkedText = records.map((r) => JSON.stringify(r)).join('\n');
  const plainText = records.map((r) => JSON.stringify({ ...r, depTimezone: zoneOf(r) })).join('\n');
  const empty = new AirportIndex([]);
  let filled = 0;

  const load = (text: string, airports: () => AirportIndex, allowUnknownAirports: boolean) => {
    const result = parseImportText(text, { today: options.today, airports: airports(), allowUnknownAirports });
    if (result.errors.length > 0) throw new Error(`import benchmark: ${result.errors[0]!.message}`);
    for (const leg of result.legs) toStorageItem(leg);
    if (!allowUnknownAirports) filled = result.filled;
  };
  const fresh = () => new AirportIndex(airportsOf(JSON.parse(readFileSync(AIRPORT_DATA_URL, 'utf8')) as AirportDataFile));

  // Unmeasured: both paths once, so neither pays the other's compilation.
  load(plainText, () => empty, true);
  load(checkedText, fresh, false);
  const withMs: number[] = [];
  const withoutMs: number[] = [];
  const referenceMs: number[] = [];
  for (let i = 0; i < options.rounds; i++) {
    const order = i % 2 === 0 ? ['with', 'without'] : ['without', 'with'];
    for (const which of order) {
      global.gc?.();
      if (which === 'without') withoutMs.push(cpuMs(() => load(plainText, () => empty, true)));
      else withMs.push(cpuMs(() => load(checkedText, fresh, false)));
    }
    global.gc?.();
    referenceMs.push(cpuMs(() => void fresh()));
  }
  const withChecksMs = median(withMs);
  const withoutChecksMs = median(withoutMs);
  return {
    legs: options.legs,
    withChecksMs,
    withoutChecksMs,
    referenceLoadMs: median(referenceMs),
    ratio: withoutChecksMs > 0 ? withChecksMs / withoutChecksMs : Number.POSITIVE_INFINITY,
    filled,
  };
}
