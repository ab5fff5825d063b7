import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { renderTrafficChart } from '../../../bench/traffic-chart.js';
import type { BenchResult } from '../../../bench/run.js';

describe('renderTrafficChart', () => {
  it('draws both designs for each measure, with the measured values, from a committed result', () => {
    const result = JSON.parse(readFileSync('docs/bench-results/legs-20000.json', 'utf8')) as BenchResult;
    const svg = renderTrafficChart(result.traffic!);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/fill="#c0392b"/g)).toHaveLength(5); // legend + 4 bars
    expect(svg.match(/fill="#27ae60"/g)).toHaveLength(5);
    const [before, after] = result.traffic!.designs;
    expect(svg).toContain(`${before!.readUnitsPerRequest.toPrecision(3)} RU`);
    expect(svg).toContain(`${after!.readUnitsPerRequest.toPrecision(3)} RU`);
  });
});
