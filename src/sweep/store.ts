import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BUCKET_ATTR, EXPIRY_INSTANT_ATTR, EXPIRY_SHARD_ATTR, TOUCH_ATTR } from '../kernel/leg-item.js';
import { LEGS_EXPIRY_INSTANT_INDEX } from '../tables.js';
import { instantKey, type SourceCursor, type SweepState } from './plan.js';

/**
 * The sweep's items and writes in the legs table: its state (`~sweep`: `w` the watermark, `s` the
 * sources told stale joined by commas, `c` the changes under way as JSON), the due legs of one shard of
 * `byExpiryInstant`, and a leg's touch (`xs`: the run's instant), which makes the stream record the
 * change consumer reads; a touch changes nothing the API shows.
 */
export const SWEEP_ID = '~sweep';
export { TOUCH_ATTR };
/** Every attribute a touch names (its key, what it writes, what it checks): the sweep's IAM condition. */
export const TOUCH_ATTRIBUTES = ['id', TOUCH_ATTR, EXPIRY_INSTANT_ATTR, BUCKET_ATTR] as const;

export interface DueLeg {
  id: string;
  /** The `xa` the index gave: the touch holds only while the leg still expires then. */
  xa: string;
}

export interface SweepStore {
  state(): Promise<SweepState | undefined>;
  saveState(state: SweepState): Promise<void>;
  /** Up to `limit` legs of `shard` expiring after `from` up to `to`, in expiry order; `more` when the shard holds others. */
  dueLegs(shard: string, from: number, to: number, limit: number): Promise<{ legs: DueLeg[]; more: boolean }>;
  /** Touches a leg (the condition: `xa` still the one given, or still in the listing index); false when the condition failed. */
  touch(id: string, at: number, xa?: string): Promise<boolean>;
}

export function createSweepStore(client: DynamoDBDocumentClient, tableName: string): SweepStore {
  return {
    async state() {
      const out = await client.send(new GetCommand({ TableName: tableName, Key: { id: SWEEP_ID }, ConsistentRead: true }));
      const item = out.Item;
      if (item === undefined || typeof item.w !== 'number') return undefined;
      const stale = typeof item.s === 'string' && item.s !== '' ? item.s.split(',') : [];
      const cursors = new Map<string, SourceCursor>();
      const stored: unknown = typeof item.c === 'string' ? JSON.parse(item.c) : null;
      if (typeof stored === 'object' && stored !== null) {
        for (const [source, c] of Object.entries(stored as Record<string, unknown>)) {
          const r = c as Record<string, unknown>;
          if (typeof r.after === 'string' && typeof r.stale === 'boolean') cursors.set(source, { stale: r.stale, after: r.after });
        }
      }
      return { watermark: item.w, stale: new Set(stale), cursors };
    },

    async saveState(state) {
      await client.send(
        new PutCommand({
          TableName: tableName,
          // Strings, not a list and a map: an empty one is no value in a stream record's image.
          Item: { id: SWEEP_ID, w: state.watermark, s: [...state.stale].sort().join(','), c: JSON.stringify(Object.fromEntries(state.cursors)) },
        }),
      );
    },

    async dueLegs(shard, from, to, limit) {
      if (to <= from) return { legs: [], more: false };
      const out = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: LEGS_EXPIRY_INSTANT_INDEX.indexName,
          KeyConditionExpression: '#xp = :shard AND #xa BETWEEN :from AND :to',
          ExpressionAttributeNames: { '#xp': EXPIRY_SHARD_ATTR, '#xa': EXPIRY_INSTANT_ATTR },
          ExpressionAttributeValues: { ':shard': shard, ':from': instantKey(from + 1), ':to': instantKey(to) },
          // One more than wanted says whether the shard holds more.
          Limit: limit + 1,
        }),
      );
      const legs: DueLeg[] = [];
      for (const item of out.Items ?? []) {
        if (typeof item.id === 'string' && typeof item[EXPIRY_INSTANT_ATTR] === 'string') legs.push({ id: item.id, xa: item[EXPIRY_INSTANT_ATTR] });
      }
      return { legs: legs.slice(0, limit), more: legs.length > limit || out.LastEvaluatedKey !== undefined && legs.length >= limit };
    },

    async touch(id, at, xa) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { id },
            UpdateExpression: 'SET #xs = :at',
            ConditionExpression: xa === undefined ? 'attribute_exists(#lb)' : '#xa = :xa',
            ExpressionAttributeNames: { '#xs': TOUCH_ATTR, ...(xa === undefined ? { '#lb': BUCKET_ATTR } : { '#xa': EXPIRY_INSTANT_ATTR }) },
            ExpressionAttributeValues: { ':at': at, ...(xa === undefined ? {} : { ':xa': xa }) },
          }),
        );
        return true;
      } catch (err) {
        if (err instanceof ConditionalCheckFailedException) return false;
        throw err;
      }
    },
  };
}
