import os from 'node:os';
import { median } from './stats.js';

/**
 * The benchmarks' calibration (docs/performance.md, "Gates: ratios and counts"): a fixed reference
 * workload, pure JavaScript with no I/O, whose CPU time in the same process is the unit the CPU
 * targets are stated in, and the machine a figure was read on. Never change the workload: every
 * calibrated limit is a multiple of its CPU time.
 */

/**
 * The reference workload's CPU ms on the machine the calibrated limits were set on (AMD EPYC, 2
 * cores, Node 20: the least of its runs on 28 November 2026, docs/performance.md): a limit of X ms
 * there is X / LIMITS_REFERENCE_MS references anywhere.
 */
export const LIMITS_REFERENCE_MS = 50;

/** The machine and runtime a figure was read on. */
export interface Machine {
  cpuModel: string;
  cores: number;
  node: string;
  platform: string;
}

export function machine(): Machine {
  const cpus = os.cpus();
  return { cpuModel: cpus[0]?.model.trim() ?? 'unknown', cores: cpus.length, node: process.version, platform: `${os.platform()} ${os.arch()}` };
}

export const describeMachine = (m: Machine): string => `${m.cpuModel}, ${m.cores} cores, Node ${m.node.replace(/^v/, '')}`;

/** CPU time (user + system) of this process while `run` runs, ms. */
export function cpuMsOf(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

const CITIES = ['London', 'Paris', 'Genève', 'New York', 'Zürich', 'São Paulo', 'Nice', 'Dubai', 'Tokyo', 'Teterboro', 'Los Angeles', 'Köln'];
const CATEGORIES = ['Light Jet', 'Midsize Jet', 'Super Midsize Jet', 'Heavy Jet', 'Ultra Long Range', 'Turboprop'];
const RECORDS = 12_000;

/**
 * The reference workload: what the measured code does, in fixed amounts: records made from a seeded
 * generator, keys built and compared, a Map index, filters, a sort, a JSON round trip. Returns a
 * checksum (so nothing is optimised away), the same on every run.
 */
export function referenceWorkload(): number {
  let seed = 0x2545f491;
  const rnd = () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const records: { id: string; startDate: string; city: string; category: string; seats: number; price: number }[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const day = 1 + Math.floor(rnd() * 28);
    const month = 1 + Math.floor(rnd() * 12);
    records.push({
      id: `REF-${(i * 7919) % 100_003}`,
      startDate: `2027-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
      city: CITIES[Math.floor(rnd() * CITIES.length)]!,
      category: CATEGORIES[Math.floor(rnd() * CATEGORIES.length)]!,
      seats: 2 + Math.floor(rnd() * 16),
      price: Math.round(rnd() * 5_000_000) / 100,
    });
  }
  const byMonth = new Map<string, typeof records>();
  for (const r of records) {
    const key = r.startDate.slice(0, 7);
    let list = byMonth.get(key);
    if (list === undefined) byMonth.set(key, (list = []));
    list.push(r);
  }
  let checksum = 0;
  for (let round = 0; round < 4; round++) {
    const city = CITIES[round * 3]!.normalize('NFKD').toLowerCase();
    for (const [, list] of byMonth) {
      const hits = list.filter((r) => r.seats >= 4 + round && r.city.normalize('NFKD').toLowerCase().startsWith(city.slice(0, 3)));
      hits.sort((a, b) => (a.startDate === b.startDate ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.startDate < b.startDate ? -1 : 1));
      checksum = (checksum + hits.length) >>> 0;
    }
    const sorted = [...records].sort((a, b) => a.price - b.price || (a.id < b.id ? -1 : 1));
    const body = JSON.stringify({ data: sorted.slice(round * 100, round * 100 + 2_000) });
    const parsed = JSON.parse(body) as { data: { id: string; seats: number }[] };
    for (const r of parsed.data) checksum = (Math.imul(checksum, 31) + r.seats + r.id.length) >>> 0;
  }
  return checksum;
}

/** The workload's checksum, from its first run (unmeasured: it compiles the code); every later run must return it. */
let checksum: number | undefined;

/** One calibration: the reference workload's CPU time on this machine, over some moments of a run. */
export interface Calibration {
  /** CPU ms of one run of the reference workload: `statistic` of the runs. */
  referenceMs: number;
  statistic: 'median' | 'mean';
  /** Each run's CPU ms, in order. */
  samples: number[];
  machine: Machine;
}

/** CPU ms of one run of the reference workload. */
export function referenceRunMs(): number {
  checksum ??= referenceWorkload();
  let sum = 0;
  const ms = cpuMsOf(() => void (sum = referenceWorkload()));
  if (sum !== checksum) throw new Error(`the reference workload returned ${sum}, not ${checksum}`);
  return ms;
}

/** The reference workload `runs` times in a row (after one unmeasured run that compiles it): their median. */
export function calibrate(runs = 5): Calibration {
  const samples = Array.from({ length: runs }, () => referenceRunMs());
  return { referenceMs: median(samples), statistic: 'median', samples, machine: machine() };
}

/**
 * The reference workload beside asynchronous work being measured: a run now, one each time this
 * process has spent `everyCpuMs` of CPU since the last (looked at every 100 ms), one at `stop()`.
 * Their mean samples the moments the work's total CPU time covers, at a cost of a few percent of
 * it; `totalMs` is their own CPU, to take out of the work's.
 */
export function calibrateAlongside(everyCpuMs = 1_000): { stop(): Calibration & { totalMs: number } } {
  const samples = [referenceRunMs()];
  let since = process.cpuUsage();
  const timer = setInterval(() => {
    const used = process.cpuUsage(since);
    if ((used.user + used.system) / 1000 < everyCpuMs) return;
    samples.push(referenceRunMs());
    since = process.cpuUsage();
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      samples.push(referenceRunMs());
      const totalMs = samples.reduce((a, b) => a + b, 0);
      return { referenceMs: totalMs / samples.length, statistic: 'mean', samples, machine: machine(), totalMs };
    },
  };
}
