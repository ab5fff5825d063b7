import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { appendChanges, changeOfItem, type LegChange } from '../legs/journal.js';
import { JOURNAL_SET_MAX } from '../legs/loader.js';
import { BUCKET_ATTR, CHANGE_ATTR, FILTER_ATTR, SORT_ATTR } from '../legs/storage.js';
import type { ItemSubscriber } from './consume.js';
import { digestOf } from './log.js';
import { SERVICE_ITEM_PREFIX, shownLeg, type ItemChange } from './transition.js';

/**
 * A subscriber of the change consumer that tells the list functions' caches (the change journal,
 * src/legs/journal.ts) about every leg change the project's tools did not journal themselves: a
 * write made around them (a hand-made PutItem, an UpdateItem in the console, a DeleteItem). The
 * tools stamp each write with a new `lc` and append it; a change whose `lc` is new is theirs.
 * Appended again when a batch is given again: applying a change twice is harmless.
 */
export function journalFollower(client: DynamoDBDocumentClient, tableName: string): ItemSubscriber {
  return async (changes) => {
    const byId = new Map<string, LegChange>();
    for (const change of changes) if (needsJournal(change)) byId.set(change.id, changeOfItem(change.newImage ?? { id: change.id }));
    const all = [...byId.values()];
    for (let i = 0; i < all.length; i += JOURNAL_SET_MAX) await appendChanges(client, tableName, all.slice(i, i + JOURNAL_SET_MAX));
  };
}

const INDEX_ATTRS = [BUCKET_ATTR, SORT_ATTR, FILTER_ATTR] as const;

/** A leg change that moved what the listing's caches hold (its index entry or its record) without a tool's new stamp. */
export function needsJournal(change: ItemChange): boolean {
  if (change.id.startsWith(SERVICE_ITEM_PREFIX)) return false;
  const stamp = change.newImage?.[CHANGE_ATTR];
  if (stamp !== undefined && stamp !== change.oldImage?.[CHANGE_ATTR]) return false;
  const indexMoved = INDEX_ATTRS.some((a) => change.oldImage?.[a] !== change.newImage?.[a]);
  return indexMoved || digestOf(shownLeg(change.oldImage)) !== digestOf(shownLeg(change.newImage));
}
