import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parseJsonReport } from '../../../bench/report.js';
import type { BenchResult } from '../../../bench/run.js';

const result = JSON.parse(readFileSync('docs/bench-results/legs-20000.json', 'utf8')) as BenchResult;
/** A function's log line, as the handlers write them (JSON, one line). */
const logLine = JSON.stringify({ level: 'INFO', message: 'api key verified', service: 'empty-legs' });

describe("the benchmark's --json stdout (npm test's smoke run parses it)", () => {
  it('is the report alone, as `npm run bench -- --json` writes it', () => {
    expect(parseJsonReport(`${JSON.stringify(result)}\n`)).toEqual(result);
  });

  it('is refused with a line before the report, quoting what stdout begins with', () => {
    expect(() => parseJsonReport(`${logLine}\n${JSON.stringify(result)}\n`)).toThrow(/^stdout is not one JSON object .*it begins "\{\\"level\\":\\"INFO\\"/);
    expect(() => parseJsonReport(`[   0 s] starting DynamoDB Local\n${JSON.stringify(result)}\n`)).toThrow(/it begins "\[   0 s\] starting/);
  });

  it('is refused when it is JSON but not a report', () => {
    expect(() => parseJsonReport(`${logLine}\n`)).toThrow(/not a benchmark report/);
    expect(() => parseJsonReport('')).toThrow(/not one JSON object/);
  });
});
