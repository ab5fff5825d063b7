import type { LoadMode } from '../loading/index.js';

/**
 * Where feeds go in the feeds bucket, and where their reports come out:
 *   incoming/<name>        upsert: the file's legs are added or replaced
 *   incoming/sync/<name>   sync: the file is the complete set of the sources it contains
 *   reports/<name>.json    the report of incoming/<name> (reports/sync/<name>.json for a sync)
 * `<name>` may hold `/`. Anything else (a "folder" placeholder ending in `/`, other prefixes) is not a feed.
 */
export const INCOMING_PREFIX = 'incoming/';
export const SYNC_PREFIX = 'incoming/sync/';
export const REPORTS_PREFIX = 'reports/';

export interface FeedKey {
  key: string;
  mode: LoadMode;
  /** Where the report is written. */
  reportKey: string;
}

export function feedKey(key: string): FeedKey | undefined {
  if (!key.startsWith(INCOMING_PREFIX) || key.endsWith('/')) return undefined;
  const rest = key.slice(INCOMING_PREFIX.length);
  return { key, mode: key.startsWith(SYNC_PREFIX) ? 'sync' : 'upsert', reportKey: `${REPORTS_PREFIX}${rest}.json` };
}

/** An object key as S3 event notifications carry it: URL-encoded, with `+` for spaces. */
export function decodeEventKey(raw: string): string {
  return decodeURIComponent(raw.replace(/\+/g, ' '));
}
