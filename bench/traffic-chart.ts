import type { TrafficResult } from './traffic.js';

/**
 * The traffic simulation's chart (docs/traffic-chart.svg): for each measure, the TTL cache (before)
 * and the change-aware cache (after) as horizontal bars on a log scale, with their values. Pure.
 */
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function renderTrafficChart(t: TrafficResult): string {
  const [before, after] = t.designs;
  if (!before || !after) return '';
  const measures: [string, number, number, string][] = [
    ['read units per request', before.readUnitsPerRequest, after.readUnitsPerRequest, 'RU'],
    ['Query calls/s to the busiest bucket', before.busiestBucket.requestsPerSecond, after.busiestBucket.requestsPerSecond, '/s'],
    ['staleness p99', before.staleness.p99Ms / 1000, after.staleness.p99Ms / 1000, 's'],
    ['CPU per request p99', before.cpuMs.p99, after.cpuMs.p99, 'ms'],
  ];
  const width = 760;
  const left = 260;
  const barMax = width - left - 120;
  const rowH = 64;
  const height = 70 + measures.length * rowH;
  const all = measures.flatMap(([, a, b]) => [a, b]).filter((v) => v > 0);
  const lo = Math.log10(Math.min(...all) / 2);
  const hi = Math.log10(Math.max(...all) * 1.2);
  const len = (v: number) => (v <= 0 ? 1 : Math.max(1, ((Math.log10(v) - lo) / (hi - lo)) * barMax));
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="13">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="22" font-size="15" font-weight="bold">${esc(
      `Traffic simulation: ${t.options.containers} containers, ${t.options.requestsPerSecond} req/s, ${t.options.seconds} s, 1 change/s + ${t.options.batchLegs}-leg batch (log scale)`,
    )}</text>`,
    `<rect x="${left}" y="34" width="12" height="12" fill="#c0392b"/><text x="${left + 18}" y="45">before: TTL cache</text>`,
    `<rect x="${left + 170}" y="34" width="12" height="12" fill="#27ae60"/><text x="${left + 188}" y="45">after: change-aware cache</text>`,
  ];
  measures.forEach(([name, a, b, unit], i) => {
    const y = 64 + i * rowH;
    out.push(`<text x="10" y="${y + 22}">${esc(name)}</text>`);
    out.push(`<rect x="${left}" y="${y}" width="${len(a).toFixed(1)}" height="20" fill="#c0392b"/>`);
    out.push(`<text x="${(left + len(a) + 6).toFixed(1)}" y="${y + 15}">${esc(`${a.toPrecision(3)} ${unit}`)}</text>`);
    out.push(`<rect x="${left}" y="${y + 24}" width="${len(b).toFixed(1)}" height="20" fill="#27ae60"/>`);
    out.push(`<text x="${(left + len(b) + 6).toFixed(1)}" y="${y + 39}">${esc(`${b.toPrecision(3)} ${unit}`)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
