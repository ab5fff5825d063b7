import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { EmptyLeg } from './model.js';

/** A leg's record as a state item keeps it (`r`): its JSON, deflated (binary). */
export function packRecord(leg: EmptyLeg | null): Uint8Array {
  return deflateRawSync(JSON.stringify(leg));
}

/**
 * The record of a state's `r` as a stream image gives it (bytes from the SDK, base64 text in a
 * Lambda event); null when there is none. Throws when it is not a packed record.
 */
export function unpackRecord(r: unknown): Record<string, unknown> | null {
  if (r === undefined) return null;
  const bytes = typeof r === 'string' ? Buffer.from(r, 'base64') : r instanceof Uint8Array ? r : undefined;
  if (bytes === undefined) throw new Error('the state record is not packed');
  return JSON.parse(inflateRawSync(bytes).toString('utf8')) as Record<string, unknown> | null;
}
