import * as v from 'valibot';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.js';
import type { KeyEnvironment } from '../auth/verdict.js';
import { AppError, invalidParameter } from '../errors.js';
import { clientIdOf, DEFAULT_CLIENT_RATE_LIMIT, DEFAULT_RATE_LIMIT, expiredMessage, getKeyByHash, getKeyById, keyState, MESSAGES, readClientRateLimit, type KeyRecord, type RateLimit } from '../keys/index.js';
import { HOUR_MS } from './grace.js';
import { MAX_SCOPES, SCOPE_PATTERN, WRITE_SCOPE } from './scopes.js';
import { activeHolders, approvedScopes, KeyStoreError, NAME_REFUSED, NAME_RULE, unapprovedScopes } from './rules.js';
import { clientKeys, readClient } from './clients.js';
import { createKey, revokeKey, rotateKey } from './store.js';
import type { Actor } from './history.js';

/**
 * The /open/v1/api-keys use cases (docs/api.md, "Managing keys"): a key manages the keys of its own
 * client and environment only; another client's key, or one of the other environment, is NOT_FOUND.
 */
export interface ApiKeysDependencies {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: Clock;
}

/** The verified key making the request, and the hash of the key presented (read strongly before a change). */
export interface Caller {
  keyId: string;
  clientId: string;
  environment: KeyEnvironment;
  keyHash: string | undefined;
}

export const DEFAULT_GRACE_HOURS = 168;
export const MAX_GRACE_HOURS = 168;
export const MAX_NAME_LENGTH = 100;
/**
 * Keys a client may hold in one environment: a create is refused at this many not revoked; a create or
 * rotation that would leave more that authenticate (active and in grace, each with its own rate limit) too.
 */
export const MAX_KEYS_PER_CLIENT = 50;
export const MAX_BODY_BYTES = 4096;
const ATTEMPTS = 3;

export type KeyStateName = 'active' | 'in_grace' | 'expired' | 'revoked';

/** A key as the API shows it: never its secret or hash. */
export interface KeyView {
  id: string;
  name: string | null;
  clientId: string;
  environment: KeyEnvironment;
  scopes: string[];
  state: KeyStateName;
  createdAt: string;
  rotatedAt: string | null;
  sunsetAt: string | null;
  revokedAt: string | null;
  successorId: string | null;
  rateLimit: RateLimit;
}

export function keyView(k: KeyRecord, now: number): KeyView {
  const state = keyState(k, now);
  return {
    id: k.keyId,
    name: k.name ?? null,
    clientId: clientIdOf(k),
    environment: k.environment,
    scopes: [...k.scopes],
    state: state === 'rotated' ? 'in_grace' : state,
    createdAt: k.createdAt,
    rotatedAt: k.rotatedAt ?? null,
    sunsetAt: k.graceUntil ?? null,
    revokedAt: k.revokedAt ?? null,
    successorId: k.successorKeyId ?? null,
    rateLimit: k.rateLimit ?? DEFAULT_RATE_LIMIT,
  };
}

const Name = v.pipe(
  v.string(),
  v.trim(),
  v.maxLength(MAX_NAME_LENGTH, `at most ${MAX_NAME_LENGTH} characters`),
  v.check((s) => !NAME_REFUSED.test(s), NAME_RULE),
  v.check((s) => !s.startsWith('elk_'), 'must not look like an API key'),
);
const CreateBody = v.strictObject({
  name: v.optional(v.nullable(Name)),
  scopes: v.pipe(
    v.array(v.pipe(v.string(), v.regex(SCOPE_PATTERN, 'each scope is resource:action in lower case, e.g. empty_leg:read'))),
    v.minLength(1, 'at least one scope'),
    v.maxLength(MAX_SCOPES, `at most ${MAX_SCOPES} scopes`),
  ),
});
const RotateBody = v.strictObject({
  graceHours: v.optional(
    v.pipe(v.number(), v.integer('a whole number of hours'), v.minValue(0, 'from 0'), v.maxValue(MAX_GRACE_HOURS, `at most ${MAX_GRACE_HOURS}`)),
  ),
});

function parse<S extends v.GenericSchema>(schema: S, body: unknown): v.InferOutput<S> {
  const out = v.safeParse(schema, body);
  if (out.success) return out.output;
  const issue = out.issues[0];
  const path = v.getDotPath(issue);
  throw invalidParameter(path === null ? 'body' : path, issue.message);
}

/** The key `id` of the caller's client and environment, or NOT_FOUND. */
async function ownKey(caller: Caller, id: string | undefined, deps: ApiKeysDependencies): Promise<KeyRecord> {
  const record = id === undefined ? undefined : await getKeyById(deps.client, deps.tableName, id);
  if (!record || clientIdOf(record) !== caller.clientId || record.environment !== caller.environment) {
    throw new AppError('NOT_FOUND', `No API key of this client with id ${id ?? ''}`);
  }
  return record;
}

/**
 * The calling key, read strongly by the hash of the key presented: only an active key changes keys.
 * In grace: 403 API_KEY_DEPRECATED; revoked, unknown: 401 API_KEY_INVALID; past its grace: 401 API_KEY_EXPIRED.
 */
async function activeCaller(caller: Caller, deps: ApiKeysDependencies): Promise<KeyRecord> {
  const record = caller.keyHash === undefined ? undefined : await getKeyByHash(deps.client, deps.tableName, caller.keyHash);
  if (!record || record.keyId !== caller.keyId) throw new AppError('API_KEY_INVALID', MESSAGES.invalid);
  switch (keyState(record, deps.clock())) {
    case 'active':
      return record;
    case 'revoked':
      throw new AppError('API_KEY_INVALID', MESSAGES.invalid);
    case 'expired':
      throw new AppError('API_KEY_EXPIRED', expiredMessage(record.graceUntil));
    case 'rotated':
      throw new AppError(
        'API_KEY_DEPRECATED',
        `This API key was rotated and is in its grace period until ${record.graceUntil ?? '?'}: only an active key creates, rotates or revokes keys; use its successor${record.successorKeyId ? ` ${record.successorKeyId}` : ''}`,
      );
  }
}

async function keysOf(caller: Caller, deps: ApiKeysDependencies): Promise<KeyRecord[]> {
  return (await clientKeys(deps.client, deps.tableName, caller.clientId)).filter((k) => k.environment === caller.environment);
}

/** Runs a change again when another change of the client came in between (its checks are read again). */
async function withRetries<T>(change: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await change();
    } catch (err) {
      if (!(err instanceof KeyStoreError && err.reason === 'concurrent') || attempt >= ATTEMPTS) throw mapRefusal(err);
    }
  }
}

function mapRefusal(err: unknown): unknown {
  if (!(err instanceof KeyStoreError)) return err;
  switch (err.reason) {
    case 'not_found':
      return new AppError('NOT_FOUND', err.message);
    case 'concurrent':
      return new AppError('SERVICE_UNAVAILABLE', err.message);
    case 'limit':
      return new AppError('KEY_LIMIT_REACHED', err.message);
    case 'not_approved':
      return new AppError('PERMISSION_DENIED', err.message);
    default:
      return new AppError('KEY_NOT_ACTIVE', err.message);
  }
}

/** The calling key, with its client's rate limit (all its keys together). */
export async function readSelf(caller: Caller, deps: ApiKeysDependencies): Promise<KeyView & { clientRateLimit: RateLimit }> {
  const [record, clientLimit] = await Promise.all([ownKey(caller, caller.keyId, deps), readClientRateLimit(deps.client, deps.tableName, caller.clientId)]);
  return { ...keyView(record, deps.clock()), clientRateLimit: clientLimit ?? DEFAULT_CLIENT_RATE_LIMIT };
}

export async function listOwnKeys(caller: Caller, deps: ApiKeysDependencies): Promise<KeyView[]> {
  const now = deps.clock();
  return (await keysOf(caller, deps)).map((k) => keyView(k, now));
}

export async function createOwnKey(caller: Caller, body: unknown, deps: ApiKeysDependencies): Promise<KeyView & { key: string }> {
  const input = parse(CreateBody, body);
  const scopes = [...new Set(input.scopes)].sort();
  const actor: Actor = { via: 'api', keyId: caller.keyId };
  return withRetries(async () => {
    const state = await readClient(deps.client, deps.tableName, caller.clientId);
    const self = await activeCaller(caller, deps);
    const keys = await keysOf(caller, deps);
    const missing = unapprovedScopes(scopes, approvedScopes(state.approvedScopes, keys));
    if (missing.length > 0) {
      throw new AppError('PERMISSION_DENIED', `This client is not approved for the scope '${missing[0]!}'; ask the operator to approve it`);
    }
    if (keys.filter((k) => k.status !== 'revoked').length >= MAX_KEYS_PER_CLIENT) {
      throw new AppError('KEY_LIMIT_REACHED', `This client has ${MAX_KEYS_PER_CLIENT} keys that are not revoked, the most it may have; revoke one first`);
    }
    const now = deps.clock();
    const created = await createKey(
      deps.client,
      deps.tableName,
      { environment: caller.environment, scopes, name: input.name ?? undefined, clientId: caller.clientId, rateLimit: self.rateLimit, now },
      { actor, seenRevision: state.revision, keyCap: MAX_KEYS_PER_CLIENT },
    );
    return { ...keyView(created.record, now), key: created.key };
  });
}

export async function rotateOwnKey(
  caller: Caller,
  id: string | undefined,
  body: unknown,
  deps: ApiKeysDependencies,
): Promise<{ key: KeyView & { key: string }; previous: KeyView; droppedScopes: string[] }> {
  const input = parse(RotateBody, body ?? {});
  const graceMs = (input.graceHours ?? DEFAULT_GRACE_HOURS) * HOUR_MS;
  const actor: Actor = { via: 'api', keyId: caller.keyId };
  return withRetries(async () => {
    const target = await ownKey(caller, id, deps);
    const state = await readClient(deps.client, deps.tableName, caller.clientId);
    await activeCaller(caller, deps);
    const now = deps.clock();
    const rotated = await rotateKey(deps.client, deps.tableName, target.keyId, { graceMs, now, actor, seenRevision: state.revision, keyCap: MAX_KEYS_PER_CLIENT });
    return { key: { ...keyView(rotated.record, now), key: rotated.key }, previous: keyView(rotated.previous, now), droppedScopes: rotated.droppedScopes };
  });
}

export async function revokeOwnKey(caller: Caller, id: string | undefined, deps: ApiKeysDependencies): Promise<KeyView> {
  const actor: Actor = { via: 'api', keyId: caller.keyId };
  return withRetries(async () => {
    const target = await ownKey(caller, id, deps);
    const state = await readClient(deps.client, deps.tableName, caller.clientId);
    await activeCaller(caller, deps);
    if (target.status === 'revoked') return keyView(target, deps.clock());
    const now = deps.clock();
    // The others holding the write scope, each read again by its hash: the index may lag a change.
    const isWriter = activeHolders([target], WRITE_SCOPE, now).length > 0;
    const others = isWriter ? activeHolders(await keysOf(caller, deps), WRITE_SCOPE, now, target.keyId) : [];
    const confirmed = await Promise.all(others.map((k) => getKeyByHash(deps.client, deps.tableName, k.keyHash)));
    if (isWriter && activeHolders(confirmed.filter((k): k is KeyRecord => k !== undefined), WRITE_SCOPE, now).length === 0) {
      throw new AppError('LAST_WRITE_KEY', `Key ${target.keyId} is the client's last active key with the scope '${WRITE_SCOPE}': create or rotate one first`);
    }
    const revoked = await revokeKey(deps.client, deps.tableName, target.keyId, { now, actor, seenRevision: state.revision });
    return keyView(revoked, now);
  });
}
