import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.js';
import { appendChanges, changeOfItem, type LegChange } from '../legs/journal.js';
import { expiryShard } from '../legs/retirement.js';
import { changeStamp } from '../legs/snapshot.js';
import { JOURNAL_SET_MAX } from '../legs/loader.js';
import { BUCKET_ATTR, CHANGE_ATTR, EXPIRY_SHARD_ATTR, FILTER_ATTR, SORT_ATTR } from '../legs/storage.js';
import type { ItemSubscriber } from './consume.js';
import { digestOf } from './log.js';
import { SERVICE_ITEM_PREFIX, shownLeg, type ItemChange } from './transition.js';

/**
 * A subscriber of the change consumer that tells the list functions' caches (the change journal,
 * src/legs/journal.ts) about every leg change the project's tools did not journal themselves: a
 * write made around them (a hand-made PutItem, an UpdateItem in the console, a DeleteItem). The
 * tools stamp each write with a new `lc` and append it; a change whose `lc` is new is theirs.
 * Appended again when a batch is given again: applying a change twice is harmless.
 *
 * A leg still in the table is also stamped as the tools stamp theirs (`lc`, and its shard `xp`),
 * so that the listing snapshot's delta (the `byChange` index) has it for containers started after
 * it; only if no write came since (its `lc` as the image has it). The stamp's own stream record
 * changes nothing else: no entry, no journal, no stamp.
 */
export function journalFollower(client: DynamoDBDocumentClient, tableName: string, clock: Clock): ItemSubscriber {
  return async (changes) => {
    const byId = new Map<string, ItemChange>();
    for (const change of changes) if (needsJournal(change)) byId.set(change.id, change);
    const all: LegChange[] = [...byId.values()].map((c) => changeOfItem(c.newImage ?? { id: c.id }));
    for (let i = 0; i < all.length; i += JOURNAL_SET_MAX) await appendChanges(client, tableName, all.slice(i, i + JOURNAL_SET_MAX));
    for (const change of byId.values()) if (change.newImage) await stamp(client, tableName, change.id, change.newImage[CHANGE_ATTR], clock());
  };
}

async function stamp(client: DynamoDBDocumentClient, tableName: string, id: string, seen: unknown, at: number): Promise<void> {
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { id },
        UpdateExpression: 'SET #lc = :lc, #xp = if_not_exists(#xp, :xp)',
        ConditionExpression: typeof seen === 'string' ? '#lc = :seen' : 'attribute_exists(#id) AND attribute_not_exists(#lc)',
        ExpressionAttributeNames: { '#lc': CHANGE_ATTR, '#xp': EXPIRY_SHARD_ATTR, ...(typeof seen === 'string' ? {} : { '#id': 'id' }) },
        ExpressionAttributeValues: { ':lc': changeStamp(at), ':xp': expiryShard(id), ...(typeof seen === 'string' ? { ':seen': seen } : {}) },
      }),
    );
  } catch (err) {
    // Written again since (by the tools, stamped, or deleted): nothing to stamp.
    if (!(err instanceof Error && err.name === 'ConditionalCheckFailedException')) throw err;
  }
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
