// @dateIndependent: its legs are whole days from the tests' clock, read by the ingestion at that clock.
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { sdkStreamMixin } from '@smithy/core/serde';
import type { S3Event } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import type { FeedReport } from '../../../src/feeds/report.js';
import { FEED_METRICS } from '../../../src/feeds/metrics.js';
import { logger } from '../../../src/logger.js';
import { scanLegItems } from '../../../src/loading/table-scan.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { testNow } from '../../support/clock.js';

/**
 * The ingest function's handler (functions/ingest-feed/handler.ts) with S3 mocked
 * (aws-sdk-client-mock; object bodies are real Node streams) and a real DynamoDB Local.
 */
const BUCKET = 'empty-legs-sandbox-feeds-test';
const s3 = mockClient(S3Client);
let t: TestTables;
let handler: (event: S3Event) => Promise<void>;
const day = (n: number) => new Date(testNow() + n * 86_400_000).toISOString().slice(0, 10);

function record(id: string, source = 'acme', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, startDate: day(1 + (id.length % 9)), endDate: day(3 + (id.length % 9)), depCityName: 'Geneva', arrCityName: 'Nice', source, ...extra };
}
const ndjson = (records: readonly Record<string, unknown>[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** What S3 returns as an object body: a byte stream, in chunks of `chunk` bytes. */
function body(text: string, chunk = 4096) {
  const bytes = Buffer.from(text);
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) parts.push(bytes.subarray(i, i + chunk));
  return sdkStreamMixin(Readable.from(parts));
}

/** An S3 ObjectCreated event as S3 sends it (the key URL-encoded, spaces as +). */
function event(key: string, bucket = BUCKET, versionId = 'v1'): S3Event {
  return {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: 'us-east-1',
        eventTime: new Date(testNow()).toISOString(),
        eventName: 'ObjectCreated:Put',
        userIdentity: { principalId: 'AWS:operator' },
        requestParameters: { sourceIPAddress: '127.0.0.1' },
        responseElements: { 'x-amz-request-id': 'r', 'x-amz-id-2': 'i' },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: 'feeds',
          bucket: { name: bucket, ownerIdentity: { principalId: 'o' }, arn: `arn:aws:s3:::${bucket}` },
          object: { key: encodeURIComponent(key).replace(/%2F/g, '/').replace(/%20/g, '+'), size: 1, eTag: 'e', versionId, sequencer: '1' },
        },
      },
    ],
  };
}

/**
 * Serves `files` from the mocked bucket (with the Last-Modified of `stored`, when given); reports
 * written are kept by key.
 */
function serve(files: Record<string, string>, chunk?: number, stored: Record<string, string> = {}): Map<string, FeedReport> {
  const reports = new Map<string, FeedReport>();
  s3.on(GetObjectCommand).callsFake((input: { Bucket: string; Key: string; VersionId?: string }) => {
    const text = input.Bucket === BUCKET ? files[input.Key] : undefined;
    if (text === undefined) throw new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });
    expect(input.VersionId).toBe('v1');
    const lastModified = stored[input.Key];
    return { Body: body(text, chunk), ...(lastModified ? { LastModified: new Date(lastModified) } : {}) };
  });
  s3.on(PutObjectCommand).callsFake((input: { Key: string; Body: string; ContentType: string }) => {
    expect(input.ContentType).toBe('application/json');
    reports.set(input.Key, JSON.parse(input.Body) as FeedReport);
    return {};
  });
  return reports;
}

const items = async () => new Map((await scanLegItems(t.client, t.legsTableName)).map((i) => [i.id as string, i]));

/** The EMF metric lines the handler printed. */
function metricLines(spy: { mock: { calls: unknown[][] } }): Record<string, unknown>[] {
  return spy.mock.calls
    .map((c) => String(c[0]))
    .filter((l) => l.includes('"CloudWatchMetrics"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('ingest-feed handler', () => {
  let stdout: jest.Spied<typeof process.stdout.write>;

  beforeAll(async () => {
    t = await createTestTables();
    process.env.DYNAMODB_ENDPOINT = t.endpoint;
    process.env.LEGS_TABLE_NAME = t.legsTableName;
    process.env.FEEDS_BUCKET_NAME = BUCKET;
    process.env.STAGE = 'sandbox';
    ({ handler } = await import('../../../functions/ingest-feed/handler.js'));
  });
  afterAll(async () => {
    s3.restore();
    await t.drop();
  });
  beforeEach(() => {
    s3.reset();
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => stdout.mockRestore());

  it('loads a feed put under incoming/ (upsert), streamed in small chunks, and writes its report and metrics', async () => {
    const legs = Array.from({ length: 300 }, (_, i) => record(`UP-${i}`, i % 2 ? 'acme' : 'jetco'));
    const reports = serve({ 'incoming/2026/nov 22.ndjson': ndjson(legs) }, 97);
    await handler(event('incoming/2026/nov 22.ndjson'));
    const report = reports.get('reports/2026/nov 22.ndjson.json')!;
    expect(report).toMatchObject({ file: 'incoming/2026/nov 22.ndjson', versionId: 'v1', mode: 'upsert', status: 'loaded', reason: null });
    expect([report.records, report.validLegs, report.invalidRecords, report.written, report.errors]).toEqual([300, 300, 0, 300, []]);
    const stored = await items();
    for (const leg of legs) expect(stored.get(leg.id as string)?.source).toBe(leg.source);
    expect(metricLines(stdout)).toEqual([
      expect.objectContaining({ Stage: 'sandbox', [FEED_METRICS.loaded]: 1, [FEED_METRICS.refused]: 0, [FEED_METRICS.legsWritten]: 300 }),
    ]);
  });

  it('refuses a file with an invalid record as a whole: nothing written, every error in the report with line, field and rule', async () => {
    const before = await items();
    const lines = [record('BAD-1'), record('BAD-2', 'acme', { depAirportIcao: 'EGL' }), record('BAD-3', 'acme', { seatNum: '8' })];
    const text = ndjson(lines).replace(/\n$/, '\n{"id": "BAD-4"\n');
    const reports = serve({ 'incoming/bad.ndjson': text });
    await handler(event('incoming/bad.ndjson'));
    const report = reports.get('reports/bad.ndjson.json')!;
    expect(report.status).toBe('refused');
    expect(report.reason).toBe('3 invalid records of 4; nothing was written');
    expect(report.written).toBe(0);
    expect(report.errors).toEqual([
      { line: 2, field: 'depAirportIcao', rule: 'must be 4 letters (ICAO), got "EGL"', message: 'line 2: depAirportIcao: must be 4 letters (ICAO), got "EGL"' },
      { line: 3, field: 'seatNum', rule: 'must be a number or null, got "8"', message: 'line 3: seatNum: must be a number or null, got "8"' },
      expect.objectContaining({ line: 4, field: null, rule: expect.stringMatching(/^invalid JSON/) as unknown }),
    ]);
    expect(await items()).toEqual(before);
    expect(metricLines(stdout)).toEqual([expect.objectContaining({ [FEED_METRICS.refused]: 1, [FEED_METRICS.loaded]: 0 })]);
  });

  it('checks airports as every loader does: a made-up code and a wrong zone refuse the file; codes alone get the airport\'s zone and fields', async () => {
    const before = await items();
    const bad = [record('AP-1', 'acme', { depAirportIcao: 'ZZZZ' }), record('AP-2', 'acme', { depAirportIcao: 'LFPB', depTimezone: 'America/Los_Angeles' })];
    const reports = serve({ 'incoming/airports-bad.ndjson': ndjson(bad), 'incoming/airports-good.ndjson': ndjson([record('AP-3', 'acme', { depCityName: 'Tokyo', departureAt: `${day(5)}T07:30:00+09:00`, startDate: undefined, depAirportIcao: 'RJTT' })]) });
    await handler(event('incoming/airports-bad.ndjson'));
    const refused = reports.get('reports/airports-bad.ndjson.json')!;
    expect([refused.status, refused.written]).toEqual(['refused', 0]);
    expect(refused.errors.map((e) => [e.line, e.field])).toEqual([[1, 'depAirportIcao'], [2, 'depTimezone']]);
    expect(refused.errors[0]!.rule).toContain('no airport has the ICAO code "ZZZZ"');
    expect(refused.errors[1]!.rule).toContain('Europe/Paris');
    expect(await items()).toEqual(before);

    await handler(event('incoming/airports-good.ndjson'));
    expect(reports.get('reports/airports-good.ndjson.json')!.status).toBe('loaded');
    expect((await items()).get('AP-3')).toMatchObject({ startDate: day(5), depTimezone: 'Asia/Tokyo', depAirportIata: 'HND', depCountryCode: 'JP' });
  });

  it('syncs a feed put under incoming/sync/, and refuses its truncated copy by the guard', async () => {
    const feed = Array.from({ length: 20 }, (_, i) => record(`SY-${i}`, 'skyline'));
    const reports = serve({
      'incoming/sync/skyline.ndjson': ndjson(feed),
      'incoming/sync/skyline-truncated.ndjson': ndjson(feed.slice(0, 5)),
      'incoming/sync/skyline-sold.ndjson': ndjson(feed.slice(0, 15)),
    });
    await handler(event('incoming/sync/skyline.ndjson'));
    expect(reports.get('reports/sync/skyline.ndjson.json')).toMatchObject({ mode: 'sync', status: 'loaded', written: 20, unlisted: 0 });
    const before = await items();

    await handler(event('incoming/sync/skyline-truncated.ndjson'));
    const refused = reports.get('reports/sync/skyline-truncated.ndjson.json')!;
    expect(refused.status).toBe('refused');
    expect(refused.guard).toEqual([{ source: 'skyline', inListing: 20, leaving: 15 }]);
    expect(refused.reason).toMatch(/^source skyline would lose 15 of its 20 legs in the listing \(more than half\)/);
    expect(await items()).toEqual(before);

    await handler(event('incoming/sync/skyline-sold.ndjson'));
    const sold = reports.get('reports/sync/skyline-sold.ndjson.json')!;
    expect([sold.status, sold.written, sold.unlisted, sold.counts]).toEqual(['loaded', 0, 5, { new: 0, changed: 0, unchanged: 15, unlist: 5 }]);
    const after = await items();
    for (const leg of feed.slice(15)) expect(after.get(leg.id as string)).toMatchObject({ listed: false });
    expect(metricLines(stdout).map((m) => [m[FEED_METRICS.loaded], m[FEED_METRICS.refused], m[FEED_METRICS.legsUnlisted]])).toEqual([
      [1, 0, 0],
      [0, 1, 0],
      [1, 0, 5],
    ]);
  });

  it('refuses a JSON array larger than the limit without reading the rest (send large feeds as NDJSON)', async () => {
    const reports = serve({ 'incoming/big.json': `[${' '.repeat(33 * 1024 * 1024)}]` }, 1024 * 1024);
    await handler(event('incoming/big.json'));
    const report = reports.get('reports/big.json.json')!;
    expect(report.status).toBe('refused');
    expect(report.errors.map((e) => e.message)).toEqual([expect.stringMatching(/^file: a JSON array is read whole and may be at most 32 MB here/)]);
  });

  it('skips objects of another bucket and keys outside incoming/; a read failure writes a failed report and fails the invocation', async () => {
    const reports = serve({});
    await handler(event('incoming/x.ndjson', 'some-other-bucket'));
    await handler(event('reports/x.ndjson.json'));
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
    const logged = jest.spyOn(logger, 'error');
    try {
      await expect(handler(event('incoming/missing.ndjson'))).rejects.toThrow('The specified key does not exist.');
      // Reported where an operator looks: the report, and one error line of the log naming the file.
      expect(logged.mock.calls).toEqual([['feed failed', expect.objectContaining({ file: 'incoming/missing.ndjson', versionId: 'v1' })]]);
    } finally {
      logged.mockRestore();
    }
    expect(reports.get('reports/missing.ndjson.json')).toMatchObject({ status: 'failed', reason: expect.stringMatching(/^NoSuchKey: /) as unknown });
    expect(metricLines(stdout)).toEqual([]);
  });

  it("refuses a source's sync file stored before the last one applied, naming it; the same file again, a newer one and other sources load", async () => {
    const feed = Array.from({ length: 10 }, (_, i) => record(`ORD-${i}`, 'ordered'));
    const other = [record('OTH-1', 'ordered-too')];
    const files = {
      'incoming/sync/ordered-b.ndjson': ndjson(feed),
      'incoming/sync/ordered-a.ndjson': ndjson(feed.slice(0, 6).map((r) => ({ ...r, airlineName: 'Old' }))),
      'incoming/sync/ordered-mixed.ndjson': ndjson([...feed.map((r) => ({ ...r, airlineName: 'Mixed' })), ...other]),
      'incoming/sync/ordered-too.ndjson': ndjson(other),
      'incoming/sync/ordered-c.ndjson': ndjson(feed.map((r) => ({ ...r, airlineName: 'Newest' }))),
    };
    const reports = serve(files, undefined, {
      'incoming/sync/ordered-a.ndjson': '2026-11-25T10:00:00Z',
      'incoming/sync/ordered-b.ndjson': '2026-11-25T11:00:00Z',
      'incoming/sync/ordered-mixed.ndjson': '2026-11-25T10:30:00Z',
      'incoming/sync/ordered-too.ndjson': '2026-11-25T09:00:00Z',
      'incoming/sync/ordered-c.ndjson': '2026-11-25T12:00:00Z',
    });
    const report = (name: string) => reports.get(`reports/sync/${name}.ndjson.json`)!;

    await handler(event('incoming/sync/ordered-b.ndjson'));
    expect(report('ordered-b')).toMatchObject({ status: 'loaded', written: 10, storedAt: '2026-11-25T11:00:00.000Z', newerApplied: [] });
    const afterB = await items();

    // A late (or retried) older file of the same source: refused, naming the newer one, nothing written.
    await handler(event('incoming/sync/ordered-a.ndjson'));
    expect(report('ordered-a')).toMatchObject({
      status: 'refused',
      written: 0,
      unlisted: 0,
      storedAt: '2026-11-25T10:00:00.000Z',
      newerApplied: [{ source: 'ordered', file: 'incoming/sync/ordered-b.ndjson', versionId: 'v1', storedAt: '2026-11-25T11:00:00.000Z' }],
    });
    expect(report('ordered-a').reason).toContain('source ordered last applied incoming/sync/ordered-b.ndjson (stored 2026-11-25T11:00:00.000Z)');
    // A file of two sources is refused if it is older for one of them.
    await handler(event('incoming/sync/ordered-mixed.ndjson'));
    expect(report('ordered-mixed')).toMatchObject({ status: 'refused', newerApplied: [{ source: 'ordered', file: 'incoming/sync/ordered-b.ndjson' }] });
    expect(await items()).toEqual(afterB);

    // The same file again (a retry) applies again; another source has its own order.
    await handler(event('incoming/sync/ordered-b.ndjson'));
    expect(report('ordered-b')).toMatchObject({ status: 'loaded', counts: { new: 0, changed: 0, unchanged: 10, unlist: 0 } });
    await handler(event('incoming/sync/ordered-too.ndjson'));
    expect(report('ordered-too')).toMatchObject({ status: 'loaded', written: 1 });
    await handler(event('incoming/sync/ordered-c.ndjson'));
    expect(report('ordered-c')).toMatchObject({ status: 'loaded', written: 10 });
    expect((await items()).get('ORD-0')).toMatchObject({ airlineName: 'Newest' });
    // ...and now b is the older one.
    await handler(event('incoming/sync/ordered-b.ndjson'));
    expect(report('ordered-b')).toMatchObject({ status: 'refused', newerApplied: [{ source: 'ordered', file: 'incoming/sync/ordered-c.ndjson' }] });
    expect(metricLines(stdout).map((m) => [m[FEED_METRICS.loaded], m[FEED_METRICS.refused]])).toEqual([
      [1, 0],
      [0, 1],
      [0, 1],
      [1, 0],
      [1, 0],
      [1, 0],
      [0, 1],
    ]);
  });
});
