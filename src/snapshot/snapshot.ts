import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { FILTER_ATTR, LONG_BUCKET, SORT_ATTR } from '../kernel/leg-item.js';
import { IndexEntryReader, lowerBound, type IndexEntry } from '../kernel/index-entry.js';

/**
 * The listing snapshot (docs/performance.md): parts (`~snapshot#<bucket>#<hash>#<k>`, a bucket's
 * index entries as gzip'd JSON, named by content) and the manifest (`~snapshot`). A reader lays the
 * change log's entries after the manifest's `logSeq` over the parts. Encoding and decoding only.
 */
export const SNAPSHOT_MANIFEST_ID = '~snapshot';
export const SNAPSHOT_PART_PREFIX = `${SNAPSHOT_MANIFEST_ID}#`;

/** A build is due when there is no snapshot, it is this old, or its delta is longer than REBUILD_DELTA entries. */
export const REBUILD_AGE_MS = 15 * 60_000;
export const REBUILD_DELTA = 500;

export function buildDue(manifest: Pick<SnapshotManifest, 'builtAt' | 'logSeq'> | undefined, logHead: number, now: number): boolean {
  return manifest?.logSeq === undefined || now - manifest.builtAt >= REBUILD_AGE_MS || logHead - manifest.logSeq > REBUILD_DELTA;
}

/** Largest gzip'd payload of one part, bytes (DynamoDB's item limit is 400 KB, names included). */
export const MAX_PART_BYTES = 300_000;

/** True when the snapshot holds `bucket`: the long bucket, or a month from its first to its last. */
export function covers(m: Pick<SnapshotManifest, 'firstMonth' | 'lastMonth'>, bucket: string): boolean {
  return bucket === LONG_BUCKET || (m.firstMonth !== '' && bucket >= m.firstMonth && bucket <= m.lastMonth);
}

export interface BucketParts {
  /** Content hash of the bucket's entries (hex). */
  hash: string;
  /** How many parts. */
  parts: number;
  /** How many entries. */
  entries: number;
  /** Bytes of the parts, gzip'd. */
  bytes: number;
}

export interface SnapshotManifest {
  /** Generation token: a build's manifest is written only while the token it read is still there. */
  token: string;
  /** Epoch ms: when the build began to read. */
  builtAt: number;
  /** Where the change log stood when the build began to read: later entries are the delta (none: read the index). */
  logSeq?: number;
  /** The month buckets the build read, first and last (`yyyy-MM`); the long bucket too. Others are read from the index. */
  firstMonth: string;
  lastMonth: string;
  buckets: Record<string, BucketParts>;
  /** Part ids this manifest no longer uses; the next build deletes them. */
  retired: string[];
}

export function partId(bucket: string, hash: string, k: number): string {
  return `${SNAPSHOT_PART_PREFIX}${bucket}#${hash}#${k}`;
}

/** Every part id of a manifest. */
export function partIds(manifest: Pick<SnapshotManifest, 'buckets'>): string[] {
  const ids: string[] = [];
  for (const [bucket, b] of Object.entries(manifest.buckets)) for (let k = 0; k < b.parts; k++) ids.push(partId(bucket, b.hash, k));
  return ids;
}

export function encodeManifest(m: SnapshotManifest): Record<string, unknown> {
  return {
    id: SNAPSHOT_MANIFEST_ID,
    g: m.token,
    bt: m.builtAt,
    ...(m.logSeq === undefined ? {} : { lq: m.logSeq }),
    m: `${m.firstMonth}/${m.lastMonth}`,
    b: JSON.stringify(Object.fromEntries(Object.entries(m.buckets).map(([k, b]) => [k, [b.hash, b.parts, b.entries, b.bytes]]))),
    old: JSON.stringify(m.retired),
  };
}

const isCount = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0;

/** The manifest of a stored item; undefined when there is none or it is not one (a reader then reads the index). */
export function decodeManifest(item: Readonly<Record<string, unknown>> | undefined): SnapshotManifest | undefined {
  if (typeof item?.g !== 'string' || typeof item.b !== 'string' || !isCount(item.bt)) return undefined;
  try {
    const raw: unknown = JSON.parse(item.b);
    const old: unknown = JSON.parse(typeof item.old === 'string' ? item.old : '[]');
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !Array.isArray(old)) return undefined;
    const buckets: Record<string, BucketParts> = {};
    for (const [bucket, v] of Object.entries(raw as Record<string, unknown>)) {
      if (!Array.isArray(v) || typeof v[0] !== 'string' || !isCount(v[1]) || !isCount(v[2])) return undefined;
      buckets[bucket] = { hash: v[0], parts: v[1], entries: v[2], bytes: isCount(v[3]) ? v[3] : 0 };
    }
    const [firstMonth = '', lastMonth = ''] = typeof item.m === 'string' ? item.m.split('/') : [];
    return {
      token: item.g,
      builtAt: item.bt,
      ...(isCount(item.lq) ? { logSeq: item.lq } : {}),
      firstMonth,
      lastMonth,
      buckets,
      retired: old.filter((x): x is string => typeof x === 'string'),
    };
  } catch {
    return undefined;
  }
}

/** One entry as a part holds it: the sort key (`startDate#id`) and the filter attribute. */
export interface RawEntry {
  ls: string;
  lf: string;
}

/** The content hash of a bucket's entries (in index order). */
export function bucketHash(entries: readonly RawEntry[]): string {
  const h = createHash('sha256');
  for (const e of entries) h.update(e.ls).update('\u0000').update(e.lf).update('\u0000');
  return h.digest('hex').slice(0, 16);
}

function encodePart(entries: readonly RawEntry[]): Buffer {
  const flat: string[] = [];
  for (const e of entries) flat.push(e.ls, e.lf);
  return gzipSync(JSON.stringify(flat));
}

/**
 * A bucket's entries (in index order) as parts: each a gzip'd JSON array `[ls, lf, ls, lf, ...]` of
 * at most `maxBytes`, the entries split evenly over as few parts as fit.
 */
export function encodeBucket(entries: readonly RawEntry[], maxBytes = MAX_PART_BYTES): Buffer[] {
  if (entries.length === 0) return [encodePart([])];
  for (let count = 1; ; count++) {
    const size = Math.ceil(entries.length / count);
    const parts: Buffer[] = [];
    for (let i = 0; i === 0 || i < entries.length; i += size) parts.push(encodePart(entries.slice(i, i + size)));
    if (parts.every((p) => p.length <= maxBytes)) return parts;
    if (size <= 1) throw new RangeError(`a snapshot entry does not fit in ${maxBytes} bytes`);
  }
}

/**
 * The entries of a bucket's parts, in order (the parts in their order). Undefined when a part is
 * not what a build writes: the reader then reads the index.
 */
export function decodeBucket(parts: readonly Uint8Array[]): IndexEntry[] | undefined {
  const reader = new IndexEntryReader();
  const out: IndexEntry[] = [];
  for (const part of parts) {
    let flat: unknown;
    try {
      flat = JSON.parse(gunzipSync(part).toString('utf8'));
    } catch {
      return undefined;
    }
    if (!Array.isArray(flat) || flat.length % 2 !== 0) return undefined;
    for (let i = 0; i < flat.length; i += 2) {
      const ls: unknown = flat[i];
      const lf: unknown = flat[i + 1];
      if (typeof ls !== 'string' || typeof lf !== 'string') return undefined;
      const entry = reader.read({ [SORT_ATTR]: ls, [FILTER_ATTR]: lf });
      if (entry) out.push(entry);
    }
  }
  return out;
}

/** The slice of `entries` (index order) whose startDate lies in [from, to], both optional and inclusive. */
export function sliceByStart(entries: readonly IndexEntry[], from: string | undefined, to: string | undefined): IndexEntry[] {
  const start = from === undefined ? 0 : lowerBound(entries, from);
  // '~' sorts after every character of a date: the first entry that starts after `to`.
  const end = to === undefined ? entries.length : lowerBound(entries, `${to}~`);
  return start === 0 && end === entries.length ? (entries as IndexEntry[]) : entries.slice(start, Math.max(start, end));
}
