import { processClock } from '../clock.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logger } from '../logger.js';
import { emfLine, SNAPSHOT_METRICS, toStdout, type ScheduledRunDeps } from '../metrics.js';
import { createChangeLogStore } from '../changes/index.js';
import { buildDue } from './snapshot.js';
import { buildSnapshot, readManifest, type BuildResult } from './snapshot-build.js';

/** What a run reports: the build's figures (src/snapshot/snapshot-build.ts), without its manifest. */
export type SnapshotRunReport = Omit<BuildResult, 'manifest'> & { due: boolean };

export type BuildSnapshotHandlerDeps = ScheduledRunDeps<DynamoDBDocumentClient>;

/**
 * The scheduled function's handler, every minute: builds the listing snapshot when one is due
 * (`buildDue`). A failure is thrown: it counts as the function's Errors, which the stack alarms on.
 */
export function createBuildSnapshotHandler(deps: BuildSnapshotHandlerDeps): () => Promise<SnapshotRunReport> {
  const now = deps.now ?? processClock;
  const emit = deps.emit ?? toStdout;
  return async () => {
    const at = now();
    const [manifest, logHead] = await Promise.all([readManifest(deps.client, deps.legsTableName), createChangeLogStore(deps.client, deps.legsTableName).head()]);
    if (!buildDue(manifest, logHead, at)) return { due: false, published: false, buckets: 0, entries: 0, partsWritten: 0, partsDeleted: 0 };
    const { manifest: _manifest, ...built } = await buildSnapshot(deps.client, deps.legsTableName, { clock: now });
    const report = { due: true, ...built };
    const m = SNAPSHOT_METRICS;
    const values = {
      [m.built]: report.published ? 1 : 0,
      [m.entries]: report.entries,
      [m.partsWritten]: report.partsWritten,
      [m.partsDeleted]: report.partsDeleted,
    };
    emit(emfLine(m.namespace, { [m.dimension]: deps.stage }, values, new Date(at)));
    if (report.published) logger.info('Built the listing snapshot', { report });
    else logger.warn('Built the listing snapshot but did not publish it: another build published first', { report });
    return report;
  };
}
