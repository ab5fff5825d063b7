import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logger } from '../logger.js';
import { emfLine, SNAPSHOT_METRICS } from '../metrics.js';
import { JOURNAL_HEAD_ID, parseHead } from './journal.js';
import { SNAPSHOT_SKEW_MS, type SnapshotManifest } from './snapshot.js';
import { buildSnapshot, readManifest } from './snapshot-build.js';

/**
 * The scheduled snapshot build (docs/deploy.md, "The listing snapshot"): every 15 minutes an
 * EventBridge rule invokes functions/build-snapshot/handler.ts, which builds the listing snapshot
 * (src/legs/snapshot-build.ts) unless nothing changed since the current one:
 *
 * - the manifest is not stale (no large load since it was built),
 * - its journal version is the journal head's version (no write through the project's tools since:
 *   every such write appends to the journal, src/legs/journal.ts), and
 * - it is younger than SNAPSHOT_MAX_AGE_MS.
 *
 * Then the run reads two items (the manifest and the journal head, strongly consistent) and stops.
 * The age bound is for what the journal cannot see, a write that bypasses the project's tools (a
 * hand-made PutItem): a build at least every hour takes it into the snapshot, at most
 * SNAPSHOT_MAX_AGE_MS plus one schedule period after the last build.
 */
export const SNAPSHOT_MAX_AGE_MS = 60 * 60_000;

/**
 * Why the snapshot must be built at `now`, or undefined when the current one is still good (the
 * run is skipped). A manifest stamped more than SNAPSHOT_SKEW_MS in the future (a writer's clock
 * far ahead) is not trusted to be young.
 */
export function buildReason(manifest: SnapshotManifest | undefined, journalVersion: number, now: number): string | undefined {
  if (!manifest) return 'no snapshot';
  if (manifest.stale) return 'marked stale by a large load';
  if (manifest.journalVersion !== journalVersion) return `the journal moved (version ${manifest.journalVersion} to ${journalVersion})`;
  const age = now - manifest.builtAt;
  if (age >= SNAPSHOT_MAX_AGE_MS) return `older than ${SNAPSHOT_MAX_AGE_MS / 60_000} minutes`;
  if (age < -SNAPSHOT_SKEW_MS) return 'built at an instant ahead of this clock';
  return undefined;
}

export interface SnapshotRunReport {
  /** True when nothing changed since the current snapshot: no build. */
  skipped: boolean;
  /** Why the run built (buildReason), or why it did not. */
  reason: string;
  /** The journal version the run read. */
  journalVersion: number;
  /** Epoch ms the current manifest was built at, as the run found it (before its own build). */
  previousBuiltAt?: number;
  /** A build published its manifest (false when skipped, or when a large load began during the build). */
  published: boolean;
  buckets: number;
  entries: number;
  partsWritten: number;
  partsDeleted: number;
}

/** One run: the skip check, then the build when it is needed. */
export async function runSnapshotBuild(client: DynamoDBDocumentClient, tableName: string, now: () => number): Promise<SnapshotRunReport> {
  const manifest = await readManifest(client, tableName);
  const head = await client.send(new GetCommand({ TableName: tableName, Key: { id: JOURNAL_HEAD_ID }, ConsistentRead: true }));
  const journalVersion = parseHead(head.Item).version;
  const reason = buildReason(manifest, journalVersion, now());
  const base = { journalVersion, ...(manifest ? { previousBuiltAt: manifest.builtAt } : {}) };
  if (reason === undefined) {
    return { ...base, skipped: true, reason: 'unchanged since the current snapshot', published: false, buckets: 0, entries: 0, partsWritten: 0, partsDeleted: 0 };
  }
  const built = await buildSnapshot(client, tableName, { clock: now });
  return {
    ...base,
    skipped: false,
    reason: built.published ? reason : `${reason}; not published: a large load began during the build`,
    published: built.published,
    buckets: built.buckets,
    entries: built.entries,
    partsWritten: built.partsWritten,
    partsDeleted: built.partsDeleted,
  };
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
    const values: Record<string, number> = { [m.built]: report.published ? 1 : 0 };
    if (!report.skipped) Object.assign(values, { [m.entries]: report.entries, [m.partsWritten]: report.partsWritten, [m.partsDeleted]: report.partsDeleted });
    emit(emfLine(m.namespace, { [m.dimension]: deps.stage }, values, new Date(at)));
    if (report.skipped) logger.info('Snapshot build skipped: nothing changed since the current snapshot', { report });
    else if (report.published) logger.info('Built the listing snapshot', { report });
    else logger.warn('Built the listing snapshot but did not publish it: a large load began meanwhile', { report });
    return report;
  };
}
