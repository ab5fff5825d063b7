import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Stage } from '../../src/config.js';
import { checksumOf, clientIdOf, environmentForStage, generateKey, KEY_PREFIXES, randomBase62, RANDOM_LENGTH } from '../../src/keys/format.js';
import { createKey, revokeKey, rotateKey } from '../../src/api-keys/store.js';
import { MAX_RATE_LIMIT } from '../../src/keys/limits/rate-limit.js';
import { setClientRateLimit } from '../../src/keys/limits/client-limit.js';
import type { LoadKeys } from './mix.js';

/**
 * The keys of a load run, made in the service's keys table through the key store (as
 * `npm run keys` makes them): one valid key, a rotation (old key in its 7-day grace, new key), a
 * revoked key, an expired one (rotated with no grace), a key of the other environment and a key
 * without the listing's scope; plus made-up keys that were never issued (valid checksums) and
 * keys with wrong checksums.
 */
export const LOAD_SCOPE = 'empty_leg:read';

export async function createLoadKeys(client: DynamoDBDocumentClient, keysTableName: string, stage: Stage): Promise<LoadKeys> {
  const environment = environmentForStage(stage);
  const other = environment === 'test' ? 'live' : 'test';
  const make = async (scopes: string[], name: string, env = environment) => {
    const made = await createKey(client, keysTableName, { environment: env, scopes, name, rateLimit: MAX_RATE_LIMIT });
    await setClientRateLimit(client, keysTableName, clientIdOf(made.record), MAX_RATE_LIMIT);
    return made;
  };

  const valid = await make([LOAD_SCOPE], 'load: valid');
  const rotating = await make([LOAD_SCOPE], 'load: rotated');
  const successor = await rotateKey(client, keysTableName, rotating.record.keyId, { graceMs: 7 * 86_400_000 });
  const revoked = await make([LOAD_SCOPE], 'load: revoked');
  await revokeKey(client, keysTableName, revoked.record.keyId);
  const expiring = await make([LOAD_SCOPE], 'load: expired');
  await rotateKey(client, keysTableName, expiring.record.keyId, { graceMs: 0 });
  const wrongEnvironment = await make([LOAD_SCOPE], 'load: other environment', other);
  const noScope = await make(['booking:read'], 'load: no scope');

  const neverIssued = Array.from({ length: 16 }, () => generateKey(environment));
  const badChecksum = Array.from({ length: 8 }, () => {
    const head = KEY_PREFIXES[environment] + randomBase62(RANDOM_LENGTH);
    const good = checksumOf(head);
    // Any other 6 base62 characters: change the last one.
    return head + good.slice(0, 5) + (good[5] === 'a' ? 'b' : 'a');
  });
  return {
    valid: valid.key,
    successor: successor.key,
    rotated: rotating.key,
    revoked: revoked.key,
    expired: expiring.key,
    wrongEnvironment: wrongEnvironment.key,
    noScope: noScope.key,
    neverIssued,
    badChecksum,
  };
}
