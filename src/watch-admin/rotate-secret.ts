import { AppError } from '../errors.js';
import { generateSecret, requireWatch, type WatchTables } from '../watches/index.js';
import type { Clock } from '../clock.js';
import { replaceSecret } from './store.js';

/**
 * POST /open/v1/watches/{id}/secret/rotate (docs/watches.md, "Signing secrets"): a new secret,
 * answered once; the replaced one signs too for 24 hours (every attempt, queued ones included).
 * A second rotation within them ends the first's overlap: only the last replaced secret still signs.
 */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

export interface RotatedSecret {
  id: string;
  secret: string;
  rotatedAt: string;
  /** Until when the replaced secret signs as well. */
  previousSecretExpiresAt: string;
}

export async function rotateWatchSecret(clientId: string, watchId: string, deps: { tables: WatchTables; clock: Clock }): Promise<RotatedSecret> {
  for (let tries = 0; tries < 3; tries++) {
    const watch = await requireWatch(clientId, watchId, deps);
    const now = deps.clock();
    const secret = generateSecret();
    const previousSecretExpiresAt = new Date(now + SECRET_OVERLAP_MS).toISOString();
    if (await replaceSecret(deps.tables, watch, secret, previousSecretExpiresAt)) {
      return { id: watchId, secret, rotatedAt: new Date(now).toISOString(), previousSecretExpiresAt };
    }
  }
  throw new AppError('SERVICE_UNAVAILABLE', 'The watch is being changed by other requests; try again');
}
