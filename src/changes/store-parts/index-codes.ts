import type { ChangeSet } from '../../kernel/leg-change.js';
import type { LogEntry } from '../log.js';

/** How the head and the index pages hold entries' index changes: compact codes, decoded to change sets. */
/** Bytes of the head's recent index changes: the head stays within one 4 KB read unit. */
export const RECENT_BYTES = 3_000;


/** A recent entry as the head keeps it: [q, id] (withdrawn) or [q, id, lb, ls, lf]. */
export type RecentCode = [number, string] | [number, string, string, string, string];

export function changeSetOf(code: unknown): ChangeSet | undefined {
  if (!Array.isArray(code) || typeof code[0] !== 'number' || typeof code[1] !== 'string') return undefined;
  if (code.length === 2) return { v: code[0], changes: [{ id: code[1] }] };
  const [, id, lb, ls, lf] = code as unknown[];
  if (code.length !== 5 || typeof lb !== 'string' || typeof ls !== 'string' || typeof lf !== 'string') return undefined;
  return { v: code[0], changes: [{ id: id as string, index: { lb, ls, lf } }] };
}

export function decodeRecent(raw: unknown): ChangeSet[] {
  if (typeof raw !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    const sets: (ChangeSet | undefined)[] = Array.isArray(parsed) ? parsed.map(changeSetOf) : [];
    return sets.every((s) => s !== undefined) ? sets : [];
  } catch {
    return [];
  }
}

/** The newest `codes` whose JSON fits in RECENT_BYTES, oldest first. */
export function trimRecent(codes: readonly RecentCode[]): string {
  const kept: string[] = [];
  let bytes = 2;
  for (let i = codes.length - 1; i >= 0; i--) {
    const text = JSON.stringify(codes[i]);
    if (bytes + text.length + 1 > RECENT_BYTES) break;
    bytes += text.length + 1;
    kept.unshift(text);
  }
  return `[${kept.join(',')}]`;
}

export const recentCode = (seq: number, e: LogEntry): RecentCode => (e.index ? [seq, e.id, e.index.lb, e.index.ls, e.index.lf] : [seq, e.id]);

export const codeOf = (s: ChangeSet): RecentCode => {
  const c = s.changes[0]!;
  return c.index ? [s.v, c.id, c.index.lb, c.index.ls, c.index.lf] : [s.v, c.id];
};
