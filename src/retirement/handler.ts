import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { processClock } from '../clock.js';
import { logger } from '../logger.js';
import { emfLine, RETIRE_METRICS, toStdout, type ScheduledRunDeps } from '../metrics.js';
import { retireDueLegs, type RetireReport } from './retire-legs.js';

export type RetireHandlerDeps = ScheduledRunDeps<DynamoDBDocumentClient>;

/** The scheduled function's handler (an EventBridge rule invokes it; the event carries nothing it needs). */
export function createRetireHandler(deps: RetireHandlerDeps): () => Promise<RetireReport> {
  const now = deps.now ?? processClock;
  const emit = deps.emit ?? toStdout;
  return async () => {
    const at = now();
    const report = await retireDueLegs(deps.client, deps.legsTableName, { now: at });
    const m = RETIRE_METRICS;
    emit(emfLine(m.namespace, { [m.dimension]: deps.stage }, { [m.retired]: report.retired, [m.behind]: report.behind.length }, new Date(at)));
    if (report.behind.length > 0) logger.warn('Retiring legs is behind: due legs are left for the next run', { report });
    else logger.info('Retired the due legs', { report });
    return report;
  };
}
