import { processClock } from '../clock.js';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { S3Event } from 'aws-lambda';
import { utcDate } from '../kernel/dates.js';
import { loadFeed } from '../loading/index.js';
import { readImportStream } from '../loading/index.js';
import { logger } from '../logger.js';
import { DEFAULT_SOURCE } from '../kernel/source.js';
import { decodeEventKey, feedKey } from './keys.js';
import { emfRecord, type FeedMetricValues } from './metrics.js';
import { newerApplied, recordApplied, type NewerApplied, type SyncFile } from './sync-order.js';
import { buildReport, type FeedReport } from './report.js';

/**
 * Ingesting one feed file of the feeds bucket: `legs:load`'s validation and loading, then a report
 * next to it, all or nothing (no --skip-invalid, no --force). NDJSON is read line by line, a JSON
 * array whole up to MAX_JSON_FEED_BYTES (docs/deploy.md, "9. Feeds").
 */
export const MAX_JSON_FEED_BYTES = 32 * 1024 * 1024;

export interface IngestDeps {
  s3: S3Client;
  dynamo: DynamoDBDocumentClient;
  legsTableName: string;
  stage: string;
  now?: () => Date;
  /** Where the metric line goes (stdout in Lambda, which CloudWatch reads). */
  emit?: (line: string) => void;
}

export interface FeedObject {
  bucket: string;
  key: string;
  versionId?: string | undefined;
  /** The S3 event's sequencer (orders the versions of one key) and time, when an event named the object. */
  sequencer?: string | undefined;
  eventTime?: string | undefined;
}

function isAsyncIterable(body: unknown): body is AsyncIterable<Uint8Array> {
  return typeof body === 'object' && body !== null && Symbol.asyncIterator in body;
}

/**
 * Ingests one object and returns its report (also written to the bucket); a sync file older than
 * the last one applied for one of its sources is refused. A failure of S3 or DynamoDB is reported
 * `failed` when it can be, then thrown for Lambda to retry; the object is never deleted.
 */
export async function ingestFeed(object: FeedObject, deps: IngestDeps): Promise<FeedReport | undefined> {
  const where = feedKey(object.key);
  if (!where) return undefined;
  const now = deps.now ?? (() => new Date(processClock()));
  const started = now();
  const base = {
    file: object.key,
    versionId: object.versionId ?? null,
    mode: where.mode,
    startedAt: started.toISOString(),
    table: deps.legsTableName,
  };
  let report: FeedReport;
  try {
    const got = await deps.s3.send(
      new GetObjectCommand({ Bucket: object.bucket, Key: object.key, ...(object.versionId ? { VersionId: object.versionId } : {}) }),
    );
    if (!isAsyncIterable(got.Body)) throw new Error(`s3://${object.bucket}/${object.key} has no readable body`);
    const parsed = await readImportStream(got.Body, { today: utcDate(started), maxJsonBytes: MAX_JSON_FEED_BYTES });
    const valid = !parsed.fatal && parsed.invalidRecords === 0;
    // A sync file is applied only if no newer one was for any of its sources (src/feeds/sync-order.ts).
    let order: { file: SyncFile; newer: NewerApplied[] } | undefined;
    const sources = [...new Set(parsed.legs.map((l) => l.source ?? DEFAULT_SOURCE))];
    if (valid && where.mode === 'sync') {
      const eventTime = object.eventTime !== undefined ? Date.parse(object.eventTime) : Number.NaN;
      const storedAt = got.LastModified?.getTime() ?? (Number.isFinite(eventTime) ? eventTime : started.getTime());
      const file: SyncFile = { file: object.key, versionId: object.versionId ?? null, storedAt, sequencer: object.sequencer ?? null };
      order = { file, newer: await newerApplied(deps.dynamo, deps.legsTableName, sources, file) };
    }
    const outcome =
      valid && !order?.newer.length
        ? await loadFeed(deps.dynamo, deps.legsTableName, { legs: parsed.legs, mode: where.mode, now: started })
        : undefined;
    if (order && outcome?.status === 'loaded') {
      const lost = await recordApplied(deps.dynamo, deps.legsTableName, sources, order.file, now());
      if (lost.length > 0) logger.warn('a newer sync file was recorded while this one loaded: syncs of one source ran at once', { file: object.key, sources: lost });
    }
    report = buildReport({ ...base, finishedAt: now().toISOString() }, parsed, outcome, order);
  } catch (err) {
    const failed: FeedReport = {
      ...base,
      finishedAt: now().toISOString(),
      status: 'failed',
      reason: `${err instanceof Error ? err.name : 'Error'}: ${err instanceof Error ? err.message : String(err)}; the load may be partly written, and is retried (loading a file again is safe)`,
      format: null,
      records: 0,
      validLegs: 0,
      invalidRecords: 0,
      written: 0,
      unlisted: 0,
      counts: null,
      sources: [],
      guard: [],
      storedAt: null,
      newerApplied: [],
      errors: [],
      moreErrors: 0,
    };
    logger.error('feed failed', { file: object.key, versionId: base.versionId, reason: failed.reason });
    await putReport(deps, object.bucket, where.reportKey, failed).catch(() => undefined);
    throw err;
  }
  await putReport(deps, object.bucket, where.reportKey, report);
  const values: FeedMetricValues = {
    loaded: report.status === 'loaded' ? 1 : 0,
    refused: report.status === 'refused' ? 1 : 0,
    legsWritten: report.written,
    legsUnlisted: report.unlisted,
  };
  (deps.emit ?? ((line) => process.stdout.write(`${line}\n`)))(JSON.stringify(emfRecord(deps.stage, values, now())));
  return report;
}

async function putReport(deps: IngestDeps, bucket: string, key: string, report: FeedReport): Promise<void> {
  await deps.s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: `${JSON.stringify(report, null, 2)}\n`,
      ContentType: 'application/json',
    }),
  );
}

/**
 * The ingest function's work for one S3 event: each object created under `incoming/` of the feeds
 * bucket, one after the other. Objects of another bucket or outside `incoming/` are skipped (logged).
 */
export async function ingestS3Event(event: S3Event, deps: IngestDeps & { bucket: string }): Promise<FeedReport[]> {
  const reports: FeedReport[] = [];
  for (const record of event.Records ?? []) {
    const bucket = record.s3.bucket.name;
    const key = decodeEventKey(record.s3.object.key);
    if (bucket !== deps.bucket || !feedKey(key)) {
      logger.warn('not a feed file: skipped', { bucket, key });
      continue;
    }
    const report = await ingestFeed(
      { bucket, key, versionId: record.s3.object.versionId, sequencer: record.s3.object.sequencer, eventTime: record.eventTime },
      deps,
    );
    if (!report) continue;
    const summary = { file: report.file, status: report.status, reason: report.reason, written: report.written, unlisted: report.unlisted };
    if (report.status === 'loaded') logger.info('feed loaded', summary);
    else logger.error('feed refused', { ...summary, errors: report.errors.slice(0, 20), moreErrors: Math.max(0, report.errors.length - 20) + report.moreErrors });
    reports.push(report);
  }
  return reports;
}

/** The ingest function's handler (functions/ingest-feed/handler.ts builds it once, at module scope). */
export function createIngestHandler(deps: IngestDeps & { bucket: string }): (event: S3Event) => Promise<void> {
  return async (event) => {
    await ingestS3Event(event, deps);
  };
}
