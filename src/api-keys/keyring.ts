import type { KeyEnvironment } from '../auth/verdict.js';
import { keyState, type KeyRecord } from '../keys/index.js';

/**
 * A client's keyring (docs/api-keys.md, "Storage"): per environment, how many keys are active and
 * which keys are in grace until when. Kept on the client's item by every key change, in its own
 * transaction, so the 50-key cap and "has a working key" are read from one item, never a scan.
 */
export interface RingSide {
  active: number;
  /** keyId -> ISO instant its grace ends. */
  grace: Record<string, string>;
}
export type Keyring = Record<KeyEnvironment, RingSide>;

/** `keyedUntil` of a client with an active key: it has a working key for as long as one can say. */
export const KEYED_FOREVER = Number.MAX_SAFE_INTEGER;

export const emptyRing = (): Keyring => ({ live: { active: 0, grace: {} }, test: { active: 0, grace: {} } });

/** What a change does to the ring. */
export type RingChange =
  | { action: 'create'; environment: KeyEnvironment }
  | { action: 'rotate'; environment: KeyEnvironment; keyId: string; graceUntil: string }
  | { action: 'revoke'; environment: KeyEnvironment; keyId: string; wasActive: boolean };

function pruned(side: RingSide, now: number): RingSide {
  return { active: side.active, grace: Object.fromEntries(Object.entries(side.grace).filter(([, until]) => Date.parse(until) > now)) };
}

/** The ring after `change` at `now`; graces that have ended are dropped. */
export function applyRingChange(ring: Keyring, change: RingChange, now: number): Keyring {
  const next: Keyring = { live: pruned(ring.live, now), test: pruned(ring.test, now) };
  const side = next[change.environment];
  switch (change.action) {
    case 'create':
      side.active += 1;
      break;
    case 'rotate':
      // One active key replaced by another; the old one authenticates until its grace ends.
      if (Date.parse(change.graceUntil) > now) side.grace[change.keyId] = change.graceUntil;
      break;
    case 'revoke':
      if (change.wasActive) side.active = Math.max(0, side.active - 1);
      delete side.grace[change.keyId];
      break;
  }
  return next;
}

/** The ring of keys read from the table (a client's item written before rings existed). */
export function ringOf(keys: readonly KeyRecord[], now: number): Keyring {
  const ring = emptyRing();
  for (const k of keys) {
    const state = keyState(k, now);
    if (state === 'active') ring[k.environment].active += 1;
    else if (state === 'rotated' && k.graceUntil !== undefined) ring[k.environment].grace[k.keyId] = k.graceUntil;
  }
  return ring;
}

/** Keys of the environment that authenticate at `now`: active and in grace (what the 50-key cap counts). */
export function authenticating(ring: Keyring, environment: KeyEnvironment, now: number): number {
  const side = ring[environment];
  return side.active + Object.values(side.grace).filter((until) => Date.parse(until) > now).length;
}

/** Until when (epoch ms) the client has a key that authenticates: KEYED_FOREVER with an active key, 0 with none. */
export function keyedUntilOf(ring: Keyring): number {
  if (ring.live.active > 0 || ring.test.active > 0) return KEYED_FOREVER;
  return Math.max(0, ...[...Object.values(ring.live.grace), ...Object.values(ring.test.grace)].map((u) => Date.parse(u)));
}
