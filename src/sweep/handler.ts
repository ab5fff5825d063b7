import { processClock } from '../clock.js';
import { logger } from '../logger.js';
import { emfLine, SWEEP_METRICS, toStdout } from '../metrics.js';
import { sweepListing, type SweepDependencies, type SweepReport } from './sweep.js';

export interface SweepHandlerDependencies extends Omit<SweepDependencies, 'now'> {
  stage: string;
  now?: () => number;
  /** Where the metric lines go (default: stdout). */
  emit?: (line: string) => void;
}

/**
 * The scheduled sweep's handler (every minute; the event carries nothing it needs). Its metric lines:
 * the run's figures and the number of stale sources (the alarm's), and one per stale source (`Source` dimension).
 */
export function createSweepHandler(deps: SweepHandlerDependencies): () => Promise<SweepReport> {
  const now = deps.now ?? processClock;
  const emit = deps.emit ?? toStdout;
  return async () => {
    const at = now();
    const report = await sweepListing({ ...deps, now: at });
    const m = SWEEP_METRICS;
    const when = new Date(at);
    emit(
      emfLine(m.namespace, { [m.dimension]: deps.stage }, { [m.expired]: report.expired, [m.behind]: report.behind.length, [m.staleSources]: report.staleSources.length }, when),
    );
    for (const source of report.staleSources) emit(emfLine(m.namespace, { [m.dimension]: deps.stage, [m.source]: source }, { [m.sourceStale]: 1 }, when));
    if (report.behind.length > 0 || report.sources.some((s) => !s.done)) logger.warn('The sweep is behind: the rest is left for the next run', { report });
    else if (report.expired > 0 || report.sources.length > 0) logger.info('Swept the listing', { report });
    return report;
  };
}
