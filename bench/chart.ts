import type { BenchResult } from './run.js';

/**
 * The chart of docs/performance.md, written as plain SVG from benchmark results (no plotting
 * library): read units per request and p95 latency against the number of legs, log-scaled values.
 * Pure.
 */
export interface Series {
  label: string;
  color: string;
  dashed?: boolean;
  points: { x: number; y: number }[];
}

export interface PanelSpec {
  title: string;
  yLabel: string;
  series: Series[];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const num = (n: number) => Number(n.toFixed(1));

/** Powers of ten (and 2x, 5x) that cover [min, max]. */
export function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  const lo = Math.floor(Math.log10(min));
  const hi = Math.ceil(Math.log10(max));
  for (let e = lo; e <= hi; e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= min / 1.0001 && v <= max * 1.0001) ticks.push(Number(v.toPrecision(3)));
    }
  }
  return ticks;
}

function tickLabel(v: number): string {
  if (v >= 1000) return `${v / 1000}k`;
  return String(v);
}

function panel(spec: PanelSpec, x0: number, y0: number, width: number, height: number, xs: number[]): string {
  const plot = { left: x0 + 60, top: y0 + 30, width: width - 80, height: height - 80 };
  const ys = spec.series.flatMap((s) => s.points.map((p) => p.y)).filter((y) => y > 0 && Number.isFinite(y));
  const yMin = 10 ** Math.floor(Math.log10(Math.min(...ys)));
  const yMax = 10 ** Math.ceil(Math.log10(Math.max(...ys)));
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  const px = (x: number) => plot.left + (xMax === xMin ? plot.width / 2 : ((x - xMin) / (xMax - xMin)) * plot.width);
  const py = (y: number) =>
    plot.top + plot.height - ((Math.log10(Math.max(y, yMin)) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * plot.height;
  const parts: string[] = [];
  parts.push(`<text x="${x0 + width / 2}" y="${y0 + 16}" text-anchor="middle" font-weight="bold">${esc(spec.title)}</text>`);
  for (const t of logTicks(yMin, yMax)) {
    const y = num(py(t));
    parts.push(`<line x1="${plot.left}" x2="${plot.left + plot.width}" y1="${y}" y2="${y}" stroke="#e3e3e3"/>`);
    parts.push(`<text x="${plot.left - 6}" y="${y + 4}" text-anchor="end" font-size="11">${tickLabel(t)}</text>`);
  }
  for (const x of xs) {
    const X = num(px(x));
    parts.push(`<line x1="${X}" x2="${X}" y1="${plot.top}" y2="${plot.top + plot.height}" stroke="#f0f0f0"/>`);
    parts.push(`<text x="${X}" y="${plot.top + plot.height + 16}" text-anchor="middle" font-size="11">${tickLabel(x)}</text>`);
  }
  parts.push(
    `<rect x="${plot.left}" y="${plot.top}" width="${plot.width}" height="${plot.height}" fill="none" stroke="#999"/>`,
    `<text x="${plot.left + plot.width / 2}" y="${plot.top + plot.height + 34}" text-anchor="middle" font-size="12">legs in the table</text>`,
    `<text transform="translate(${x0 + 16} ${plot.top + plot.height / 2}) rotate(-90)" text-anchor="middle" font-size="12">${esc(spec.yLabel)} (log scale)</text>`,
  );
  spec.series.forEach((s, i) => {
    const pts = s.points.filter((p) => p.y > 0 && Number.isFinite(p.y));
    if (pts.length === 0) return;
    const d = pts.map((p, j) => `${j === 0 ? 'M' : 'L'}${num(px(p.x))},${num(py(p.y))}`).join(' ');
    parts.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    for (const p of pts) {
      parts.push(`<circle cx="${num(px(p.x))}" cy="${num(py(p.y))}" r="3" fill="${s.color}"><title>${esc(s.label)}: ${p.y.toFixed(2)} at ${p.x}</title></circle>`);
    }
    const ly = plot.top + 8 + i * 16;
    const lx = plot.left + 8;
    parts.push(
      `<line x1="${lx}" x2="${lx + 22}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      `<text x="${lx + 28}" y="${ly + 4}" font-size="11">${esc(s.label)}</text>`,
    );
  });
  return parts.join('\n');
}

export function renderPanels(panels: PanelSpec[], xs: number[], caption: string): string {
  const width = 460;
  const height = 340;
  const total = width * panels.length;
  const body = panels.map((p, i) => panel(p, i * width, 0, width, height, xs)).join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${total}" height="${height + 24}" viewBox="0 0 ${total} ${height + 24}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    body,
    `<text x="${total / 2}" y="${height + 14}" text-anchor="middle" font-size="11" fill="#555">${esc(caption)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}

/** Read units per request (mean of the mix) and p95 latency, against the number of legs. */
export function renderChart(results: readonly BenchResult[]): string {
  const rs = [...results].sort((a, b) => a.data.legs - b.data.legs);
  const xs = rs.map((r) => r.data.legs);
  const mean = (r: BenchResult, f: (q: BenchResult['queries'][number]) => number) =>
    r.queries.reduce((a, q) => a + f(q), 0) / (r.queries.length || 1);
  const at = (f: (r: BenchResult) => number) => rs.map((r) => ({ x: r.data.legs, y: f(r) }));
  const readUnits: PanelSpec = {
    title: 'Read units per request, empty cache (mean of the mix)',
    yLabel: 'read units',
    series: [
      { label: 'whole items (simple design)', color: '#c0392b', dashed: true, points: at((r) => mean(r, (q) => q.reference.wholeItemReadUnits)) },
      { label: 'measured', color: '#1f6fb2', points: at((r) => r.overall.cold.readUnits) },
      { label: 'floor (page records only)', color: '#27ae60', dashed: true, points: at((r) => mean(r, (q) => q.reference.floorReadUnits)) },
    ],
  };
  const latency: PanelSpec = {
    title: 'List handler p95 latency',
    yLabel: 'ms',
    series: [
      { label: 'empty cache (DynamoDB Local), all queries', color: '#c0392b', points: at((r) => r.overall.cold.latencyMs.p95) },
      { label: 'warm cache, worst query', color: '#1f6fb2', points: at((r) => Math.max(...r.queries.map((q) => q.warm.latencyMs.p95))) },
      { label: 'warm cache, all queries', color: '#27ae60', points: at((r) => r.overall.warm.latencyMs.p95) },
    ],
  };
  const first = rs[0];
  const caption = first
    ? `npm run bench, ${first.machine.cpus} CPUs, Node ${first.machine.node}, DynamoDB Local; warm runs ${first.options.runs} per query`
    : 'no results';
  return renderPanels([readUnits, latency], xs, caption);
}
