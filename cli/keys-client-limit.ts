import { CommandError } from './command.js';
import type { CommandTables } from './connect.js';
import { REVOCATION_BOUND_MS } from '../src/keys/authorizer.js';
import { clientKeys } from '../src/api-keys/clients.js';
import { DEFAULT_CLIENT_RATE_LIMIT, readClientRateLimit, setClientRateLimit } from '../src/keys/limits/client-limit.js';
import { DEFAULT_RATE_LIMIT, describeRateLimit, type RateLimit } from '../src/keys/limits/rate-limit.js';
import { print } from './keys-output.js';

/**
 * `npm run keys -- client-limit CLIENT_ID [--rate R --burst B | --default]` (docs/api-keys.md, "The
 * client's limit"): shows the client's limit, all its keys together, or sets it (`change`).
 */
export async function clientLimitCommand(target: CommandTables, clientId: string, limit: RateLimit | undefined, change: boolean): Promise<void> {
  const keys = await clientKeys(target.client, target.keysTableName, clientId);
  if (keys.length === 0) throw CommandError.failure(`No client with id ${clientId}: no key belongs to it (see \`npm run keys -- list\`)`);
  if (!change) {
    const own = await readClientRateLimit(target.client, target.keysTableName, clientId);
    print(`Client ${clientId} has ${own ? `its own rate limit, ${describeRateLimit(own)}` : `the default client rate limit, ${describeRateLimit(DEFAULT_CLIENT_RATE_LIMIT)}`}, all its keys together.`);
    return;
  }
  await setClientRateLimit(target.client, target.keysTableName, clientId, limit);
  const effective = limit ?? DEFAULT_CLIENT_RATE_LIMIT;
  print(
    `Client ${clientId} now has ${limit ? `its own rate limit, ${describeRateLimit(limit)}` : `the default client rate limit, ${describeRateLimit(DEFAULT_CLIENT_RATE_LIMIT)}`}, all its keys together: in effect within ${REVOCATION_BOUND_MS / 1000} seconds.`,
  );
  const above = keys.filter((k) => k.status !== 'revoked' && (k.rateLimit ?? DEFAULT_RATE_LIMIT).rate > effective.rate);
  if (above.length > 0) process.stderr.write(`Warning: ${above.length} key(s) of ${clientId} have a rate above the client's; the client's limit caps them\n`);
}
