import os from 'node:os';
import { describeMachine, machine } from '../../bench/calibration.js';

/**
 * A test's wait bound: it detects a pipeline that never delivers, not a slow one. Latency targets
 * are the benchmark's (docs/performance.md, "Gates"); a test prints its figure with `reportNotJudged`.
 */
export const HANG_BOUND_MS = 30_000;

/** Prints an absolute figure beside the test, marked as not judged, with the machine and its load. */
export function reportNotJudged(label: string, ms: number): void {
  const load = os.loadavg()[0]!.toFixed(1);
  process.stdout.write(`${label}: ${Math.round(ms)} ms (reported, not judged; ${describeMachine(machine())}, load ${load})\n`);
}
