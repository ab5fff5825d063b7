import { clientIdOf } from '../src/keys/format.js';
import type { PublicKeyRecord } from '../src/keys/record.js';
import { NAME_REFUSED, type CreatedKey } from '../src/api-keys/rules.js';
import { DEFAULT_RATE_LIMIT, describeRateLimit, isRateLimit, type RateLimit } from '../src/keys/limits/rate-limit.js';
import { USAGE_DAYS, type DayUsage } from '../src/keys/limits/usage.js';
import type { HistoryEntry } from '../src/api-keys/history.js';

/** What `npm run keys` prints: the created key (once), the keys table, a key's usage, as text or JSON. */
export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

const UNSAFE = new RegExp(NAME_REFUSED.source, 'gu');

/** Text as the command prints it (a table cell, a JSON line): control and bidi characters as `\uXXXX`, never raw. */
export function safeText(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

export function jsonKey(created: CreatedKey): string {
  const r = created.record;
  return JSON.stringify({
    keyId: r.keyId,
    clientId: clientIdOf(r),
    key: created.key,
    environment: r.environment,
    scopes: r.scopes,
    name: r.name ?? null,
  });
}

export function describeKey(created: CreatedKey): string {
  const r = created.record;
  return `${r.environment} key ${r.keyId} of client ${clientIdOf(r)} (${r.name ? `name '${safeText(r.name)}', ` : ''}scopes ${r.scopes.join(',')})`;
}

export function printSecret(created: CreatedKey): void {
  print(created.key);
  print('Store this key now: it is shown only once and cannot be recovered.');
}

export function jsonRecord(k: PublicKeyRecord): Record<string, unknown> {
  return {
    keyId: k.keyId,
    clientId: k.clientId,
    name: k.name ?? null,
    environment: k.environment,
    scopes: k.scopes,
    status: k.status,
    createdAt: k.createdAt,
    rotatedAt: k.rotatedAt ?? null,
    graceUntil: k.graceUntil ?? null,
    revokedAt: k.revokedAt ?? null,
    successorKeyId: k.successorKeyId ?? null,
    predecessorKeyId: k.predecessorKeyId ?? null,
    rateLimit: { ...limitOf(k), default: !isRateLimit(k.rateLimit) },
  };
}

/** The limit the authorizer applies to the key. */
export function limitOf(k: PublicKeyRecord): RateLimit {
  return isRateLimit(k.rateLimit) ? k.rateLimit : DEFAULT_RATE_LIMIT;
}

/** Left-aligned columns, two spaces apart, the last one not padded. */
export function printRows(rows: readonly string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) print(r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd());
}

export function printTable(keys: PublicKeyRecord[]): void {
  if (keys.length === 0) {
    print('No keys.');
    return;
  }
  const rows = [
    ['KEY ID', 'CLIENT', 'ENV', 'STATUS', 'SCOPES', 'NAME', 'CREATED', 'RATE LIMIT', 'NOTE'],
    ...keys.map((k) => [
      k.keyId,
      k.clientId,
      k.environment,
      k.status,
      k.scopes.join(','),
      k.name === undefined ? '-' : safeText(k.name),
      k.createdAt,
      `${describeRateLimit(limitOf(k))}${isRateLimit(k.rateLimit) ? '' : ' (default)'}`,
      k.status === 'rotated'
        ? `in grace until ${k.graceUntil ?? '?'}, successor ${k.successorKeyId ?? '?'}`
        : k.status === 'expired'
          ? `grace ended ${k.graceUntil ?? '?'}, successor ${k.successorKeyId ?? '?'}`
          : k.status === 'revoked'
            ? `revoked ${k.revokedAt ?? '?'}`
            : '',
    ]),
  ];
  printRows(rows);
}

export function printUsage(keyId: string, days: readonly DayUsage[]): void {
  const total = days.reduce((a, d) => ({ served: a.served + d.served, refused: a.refused + d.refused }), { served: 0, refused: 0 });
  print(`Usage of key ${keyId}, last ${USAGE_DAYS} days (UTC):`);
  printRows([
    ['DAY', 'SERVED', 'RATE LIMITED'],
    ...days.map((d) => [d.day, String(d.served), String(d.refused)]),
    ['total', String(total.served), String(total.refused)],
  ]);
}

export function printHistory(clientId: string, entries: readonly HistoryEntry[]): void {
  if (entries.length === 0) {
    print(`No changes recorded for client ${clientId}.`);
    return;
  }
  printRows([
    ['AT', 'ACTION', 'KEY ID', 'ENV', 'BY', 'NOTE'],
    ...entries.map((e) => [
      e.at,
      e.action,
      e.keyId,
      e.environment,
      e.via === 'api' ? `api, key ${e.actorKeyId ?? '?'}` : 'command',
      e.action === 'rotate' ? `successor ${e.successorKeyId ?? '?'}, grace until ${e.graceUntil ?? '?'}` : '',
    ]),
  ]);
}
