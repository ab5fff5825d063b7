import { CommandError, parseCommandLine, runCommand } from '../cli/command.js';
import { processClock } from '../src/clock.js';
import { parseIntegerSetting } from '../src/config.js';
import { describeMachine } from './calibration.js';
import { targetLine } from './targets.js';
import { flightReadTargets, measureFlightReads } from './flight-reads.js';
import { measureWatchMatching, watchBenchData, watchMatchingTargets } from './watches.js';

/**
 * `npm run bench:watches -- [--watches W] [--legs N] [--changes C] [--seed S] [--json] [--check]`:
 * the watch matching benchmark alone (docs/watches.md, "Matching that scales"). `--check` judges
 * ratios only: CPU per change against the reference workload's, the index against every watch, and
 * counts: the flight watches' reads per batch of changes (bench/flight-reads.ts).
 */
async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(process.argv.slice(2), {
    watches: { type: 'string' },
    legs: { type: 'string' },
    changes: { type: 'string' },
    seed: { type: 'string' },
    json: { type: 'boolean' },
    check: { type: 'boolean' },
  });
  if (positionals.length > 0) throw CommandError.usage(positionals[0]!, 'unexpected argument');
  const now = processClock();
  const options = {
    watches: parseIntegerSetting('--watches', values.watches, 10_000, 1, 1_000_000),
    legs: parseIntegerSetting('--legs', values.legs, 20_000, 1, 1_000_000),
    changes: parseIntegerSetting('--changes', values.changes, 20_000, 1, 1_000_000),
    seed: parseIntegerSetting('--seed', values.seed, 20_260_301, 0, 2 ** 32 - 1),
    today: new Date(now).toISOString().slice(0, 10),
    now,
  };
  const data = watchBenchData(options);
  const figures = measureWatchMatching(options, data);
  const flightReads = await measureFlightReads(data.legs, data.transitions, now);
  const targets = [...watchMatchingTargets(figures), ...flightReadTargets(flightReads)];
  if (values.json) process.stdout.write(`${JSON.stringify({ figures, flightReads, targets })}\n`);
  else {
    process.stdout.write(
      [
        `watches ${figures.watches}, legs ${figures.legs}, changes ${figures.changes}`,
        `index built in ${figures.indexBuildMs.toFixed(0)} ms CPU`,
        `indexed: ${figures.perChangeUs.toFixed(1)} µs CPU per change (${figures.candidatesPerChange.toFixed(1)} watches tested, ${figures.eventsPerChange.toFixed(2)} events)`,
        `every watch tested: ${figures.bruteForcePerChangeUs.toFixed(1)} µs CPU per change (${(figures.bruteForcePerChangeUs / figures.perChangeUs).toFixed(1)} x)`,
        `reference workload: ${figures.referenceMs.toFixed(1)} ms CPU (least of its runs beside the passes) on ${describeMachine(figures.machine)}`,
        `flight watches' reads: ${flightReads.batches} batches of ${flightReads.changes} changes, ${flightReads.bucketReadsPerBatch} bucket reads per batch (at most ${flightReads.bucketReadsMax}; ${flightReads.rangesPerBatch} if each leg's ranges were read apart), ${flightReads.legsFetchedPerChange} legs fetched per change, ${flightReads.offersCapped} offers capped`,
        ...targets.map(targetLine),
      ].join('\n') + '\n',
    );
  }
  if (values.check === true && targets.some((t) => !t.holds)) process.exitCode = 1;
}

runCommand(main);
