import { decodeCursor } from '../src/changes/cursor.js';
import { readChanges, type FeedDependencies } from '../src/changes/feed.js';

/** A full sync of the change feed (no `after`, pages of 1,000) until the listing is done: the legs served. */
export async function readInitialListing(feed: FeedDependencies): Promise<number> {
  let served = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await readChanges({ after: cursor === undefined ? undefined : decodeCursor(cursor, feed.cursorKey), size: 1000 }, feed);
    served += page.changes.length;
    cursor = page.cursor;
    if (decodeCursor(cursor, feed.cursorKey).kind === 'log') return served;
  }
}
