import type { LoadMode } from '../loading/index.js';

/**
 * Feed keys in the feeds bucket: `incoming/<name>` (upsert) and `incoming/sync/<name>` (sync), the report
 * of `incoming/<path>` at `reports/<path>.json`; `<name>` may hold `/`. Anything else, a "folder"
 * placeholder ending in `/` included, is not a feed (docs/deploy.md, "9. Feeds").
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
