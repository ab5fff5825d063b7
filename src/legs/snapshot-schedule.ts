import { processClock } from '../clock.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logger } from '../logger.js';
import { emfLine, SNAPSHOT_METRICS } from '../metrics.js';
import { buildSnapshot, type BuildResult } from './snapshot-build.js';

/**
 * The scheduled snapshot build (docs/deploy.md, "The listing snapshot"): every 15 minutes an
 * EventBridge rule invokes functions/build-snapshot/handler.ts, which builds the listing snapshot
 * (src/legs/snapshot-build.ts). Every run builds: a build reads the index once (cents a day at
 * 100,000 legs) and writes only the buckets whose content changed, and a build every period is
 * what bounds a write that bypasses the project's tools (no journal, no change stamp): it is in
 * the snapshot within 15 minutes.
 */
/** What a run reports: the build's figures (src/legs/snapshot-build.ts), without its manifest. */
export type SnapshotRunReport = Omit<BuildResult, 'manifest'>;

export interface BuildSnapshotHandlerDeps {
  client: DynamoDBDocumentClient;
  legsTableName: string;
  stage: string;
  now?: () => number;
  /** Where the metric line goes (stdout in Lambda, which CloudWatch reads). */
  emit?: (line: string) => void;
}

/**
 * The scheduled function's handler (an EventBridge rule invokes it; the event carries nothing it
 * needs). A failure is thrown: it counts as the function's Errors, which the stack alarms on.
 */
export function createBuildSnapshotHandler(deps: BuildSnapshotHandlerDeps): () => Promise<SnapshotRunReport> {
  const now = deps.now ?? processClock;
  const emit = deps.emit ?? ((line: string) => process.stdout.write(`${line}\n`));
  return async () => {
    const at = now();
    const { manifest: _manifest, ...report } = await buildSnapshot(deps.client, deps.legsTableName, { clock: now });
    const m = SNAPSHOT_METRICS;
    const values = {
      [m.built]: report.published ? 1 : 0,
      [m.entries]: report.entries,
      [m.partsWritten]: report.partsWritten,
      [m.partsDeleted]: report.partsDeleted,
    };
    emit(emfLine(m.namespace, { [m.dimension]: deps.stage }, values, new Date(at)));
    if (report.published) logger.info('Built the listing snapshot', { report });
    else logger.warn('Built the listing snapshot but did not publish it: a large load began meanwhile', { report });
    return report;
  };
}
