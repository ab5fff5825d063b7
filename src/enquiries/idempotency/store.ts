import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AppError } from '../../errors.js';
import { KEY_HOLD_MS } from './key.js';

/**
 * The idempotency keys (docs/enquiries.md, "Idempotency"): one item per client and key, claimed by a
 * conditional put (absent, or held past its 24 hours, or a crashed run's lock past its end), made
 * `done` with the first answer in the same transaction as the enquiry, released when the run fails.
 * Every instant is the service's clock's (so `--at` and the tests move it), never the system time.
 */
export interface StoredAnswer {
  statusCode: number;
  body: string;
}

export type Claim = { kind: 'claimed'; id: string; token: string } | { kind: 'replay'; answer: StoredAnswer };

export interface KeyTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/** A key's claim is given up after this long without its answer (a run that crashed): the function's timeout and more. */
export const LOCK_MS = 60_000;

const inUse = () => new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry after it ends');
const reused = () => new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with another request (another body or leg) in the last 24 hours; use a new key');

export async function claimKey(t: KeyTable, id: string, fingerprint: string, now: number): Promise<Claim> {
  const token = randomUUID();
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await t.client.send(
        new PutCommand({
          TableName: t.tableName,
          Item: { pk: id, fp: fingerprint, state: 'running', claimToken: token, lockUntil: now + LOCK_MS, holdUntil: now + KEY_HOLD_MS, ttl: Math.ceil((now + KEY_HOLD_MS) / 1000) + 3_600 },
          ConditionExpression: 'attribute_not_exists(pk) OR holdUntil <= :now OR (#s = :running AND lockUntil <= :now AND fp = :fp)',
          ExpressionAttributeNames: { '#s': 'state' },
          ExpressionAttributeValues: { ':now': now, ':running': 'running', ':fp': fingerprint },
        }),
      );
      return { kind: 'claimed', id, token };
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
    const held = (await t.client.send(new GetCommand({ TableName: t.tableName, Key: { pk: id }, ConsistentRead: true }))).Item;
    // Gone or expired between the put and the read: claim again.
    if (held === undefined || (held.holdUntil as number) <= now) continue;
    if (held.fp !== fingerprint) throw reused();
    if (held.state === 'done') return { kind: 'replay', answer: { statusCode: held.statusCode as number, body: held.body as string } };
    throw inUse();
  }
  throw inUse();
}

/** The transaction item that stores the first answer of a claimed key (with the write it answers). */
export function completionItem(t: KeyTable, claim: { id: string; token: string }, answer: StoredAnswer) {
  return {
    Update: {
      TableName: t.tableName,
      Key: { pk: claim.id },
      UpdateExpression: 'SET #s = :done, statusCode = :code, body = :body REMOVE lockUntil',
      ConditionExpression: '#s = :running AND claimToken = :token',
      ExpressionAttributeNames: { '#s': 'state' },
      ExpressionAttributeValues: { ':done': 'done', ':running': 'running', ':token': claim.token, ':code': answer.statusCode, ':body': answer.body },
    },
  };
}

/** Gives a claimed key up (its run failed): the same request may be made again at once. */
export async function releaseKey(t: KeyTable, claim: { id: string; token: string }): Promise<void> {
  try {
    await t.client.send(new DeleteCommand({ TableName: t.tableName, Key: { pk: claim.id }, ConditionExpression: 'claimToken = :token', ExpressionAttributeValues: { ':token': claim.token } }));
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  }
}
