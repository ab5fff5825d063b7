import * as v from 'valibot';
import type { StoredLeg } from '../storage.js';
import { ID_PATTERN } from './reference-data.js';
import { importRecordSchema } from './schema.js';
import { show } from './show.js';
import type { ImportError, ImportOptions, ImportResult, RecordPosition } from './types.js';

/** Validation of parsed records: every broken field with its first rule, duplicate ids. */

type Issue = v.BaseIssue<unknown>;

export interface FieldIssue {
  field: string | null;
  rule: string;
}

export type RecordResult = { ok: true; leg: StoredLeg } | { ok: false; issues: FieldIssue[] };

function fieldOf(issue: Issue): string | null {
  let field = '';
  for (const item of issue.path ?? []) {
    const key = (item as { key: unknown }).key;
    if (typeof key === 'number') field += `[${key}]`;
    else field += field === '' ? String(key) : `.${String(key)}`;
  }
  return field === '' ? null : field;
}

/**
 * Validates one record. Every broken field is reported, with the first rule it breaks (a field
 * that fails keeps the cross-field rules that involve it from running, so there is no echo).
 */
export function validateImportRecord(record: unknown, options: ImportOptions): RecordResult {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    return { ok: false, issues: [{ field: null, rule: `must be a JSON object, got ${show(record)}` }] };
  }
  const result = v.safeParse(importRecordSchema(options.today), record);
  if (result.success) return { ok: true, leg: result.output };
  const seen = new Set<string | null>();
  const issues: FieldIssue[] = [];
  for (const issue of result.issues) {
    const field = fieldOf(issue);
    // The whole-record issues (not an object) are kept once; per field, the first rule wins.
    if (seen.has(field)) continue;
    seen.add(field);
    issues.push({ field, rule: issue.message });
  }
  return { ok: false, issues };
}

export function describePosition(at: RecordPosition): string {
  return `${at.kind} ${at.n}`;
}

export function importError(at: RecordPosition | null, field: string | null, rule: string): ImportError {
  const where = at ? describePosition(at) : 'file';
  return { at, field, rule, message: field ? `${where}: ${field}: ${rule}` : `${where}: ${rule}` };
}

/**
 * Validates parsed records. `positions[i]` says where record i sits in its file (default: index i).
 * Refuses duplicate ids (every occurrence, naming the others). Legs come back in input order.
 */
export function validateImportRecords(
  records: readonly unknown[],
  options: ImportOptions & { positions?: readonly RecordPosition[] },
): Omit<ImportResult, 'format' | 'fatal'> {
  const positionOf = (i: number): RecordPosition => options.positions?.[i] ?? { kind: 'index', n: i };
  const byId = new Map<string, number[]>();
  records.forEach((r, i) => {
    const id = typeof r === 'object' && r !== null ? (r as { id?: unknown }).id : undefined;
    if (typeof id === 'string' && ID_PATTERN.test(id)) {
      const list = byId.get(id);
      if (list) list.push(i);
      else byId.set(id, [i]);
    }
  });

  const legs: StoredLeg[] = [];
  const errors: ImportError[] = [];
  let invalidRecords = 0;
  records.forEach((record, i) => {
    const at = positionOf(i);
    const recordErrors: ImportError[] = [];
    const result = validateImportRecord(record, options);
    if (!result.ok) for (const issue of result.issues) recordErrors.push(importError(at, issue.field, issue.rule));
    const id = (record as { id?: unknown } | null)?.id;
    const same = typeof id === 'string' ? byId.get(id) : undefined;
    if (same && same.length > 1) {
      const others = same.filter((j) => j !== i).map((j) => describePosition(positionOf(j)));
      recordErrors.push(importError(at, 'id', `duplicate id ${show(id)}, also at ${others.join(', ')}`));
    }
    if (recordErrors.length > 0) {
      invalidRecords += 1;
      errors.push(...recordErrors);
    } else if (result.ok) {
      legs.push(result.leg);
    }
  });
  return { legs, errors, records: records.length, invalidRecords };
}
