import { measureWatchMatching } from './watches.js';
import { cpuMsOf } from './calibration.js';

function memWorkload(): number {
  let seed = 12345;
  const rnd = () => { seed = (seed + 0x6d2b79f5) >>> 0; let t = Math.imul(seed ^ (seed >>> 15), seed | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296; };
  const N = 150_000;
  const map = new Map<string, { id: string; next: number; seats: number; city: string }>();
  const ids: string[] = [];
  for (let i = 0; i < N; i++) { const id = `K${(i * 7919) % 1_000_003}`; ids.push(id); map.set(id, { id, next: Math.floor(rnd() * N), seats: i % 17, city: `C${i % 301}` }); }
  let sum = 0; let at = 0;
  for (let k = 0; k < 600_000; k++) { const r = map.get(ids[at]!)!; sum = (sum + r.seats + r.city.length) >>> 0; at = r.next; }
  const set = new Set<string>();
  for (let k = 0; k < 200_000; k++) { const id = ids[Math.floor(rnd() * N)]!; if (set.has(id)) sum++; else set.add(id); }
  return sum;
}
memWorkload();
const now = Date.parse('2026-11-28T12:00:00Z');
for (let i = 0; i < 4; i++) {
  const m0 = Math.min(...[0,1,2].map(() => cpuMsOf(() => void memWorkload())));
  const f = measureWatchMatching({ watches: 10000, legs: 20000, changes: 2500, today: '2026-11-28', now, seed: 20260301 });
  const m1 = Math.min(...[0,1,2].map(() => cpuMsOf(() => void memWorkload())));
  const m = Math.min(m0, m1);
  console.log(`perChange ${f.perChangeUs.toFixed(0)} µs; refA ${f.referenceMs.toFixed(1)} ratioA ${(f.perChangeUs/1000/f.referenceMs).toFixed(5)}; mem ${m.toFixed(1)} ratioM ${(f.perChangeUs/1000/m).toFixed(5)}; ${(Date.now()/1000|0)}`);
}
