import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logger } from '../logger.js';
import { emfLine, SNAPSHOT_METRICS } from '../metrics.js';
import { buildSnapshot } from './snapshot-build.js';

/**
 * The scheduled snapshot build (docs/deploy.md, "The listing snapshot"): every 15 minutes an
 * EventBridge rule invokes functions/build-snapshot/handler.ts, which builds the listing snapshot
 * (src/legs/snapshot-build.ts). Every run builds: a build reads the index once (cents a day at
 * 100,000 legs) and writes only the buckets whose content changed, and a build every period is
 * what bounds a write that bypasses the project's tools (no journal, no change stamp): it is in
 * the snapshot within 15 minutes.
 */
export interface SnapshotRunReport {
  /** The build published its manifest (false when a large load began during the build). */
  published: boolean;
  buckets: number;
  entries: number;
  partsWritten: number;
  partsDeleted: number;
}

/** One run: a build. */
export async function runSnapshotBuild(client: DynamoDBDocumentClient, tableName: string, now: () => number): Promise<SnapshotRunReport> {
  const built = await buildSnapshot(client, tableName, { clock: now });
  return { published: built.published, buckets: built.buckets, entries: built.entries, partsWritten: built.partsWritten, partsDeleted: built.partsDeleted };
}

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
  const now = deps.now ?? Date.now;
  const emit = deps.emit ?? ((line: string) => process.stdout.write(`${line}\n`));
  return async () => {
    const at = now();
    const report = await runSnapshotBuild(deps.client, deps.legsTableName, now);
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
