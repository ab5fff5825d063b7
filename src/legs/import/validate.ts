import * as v from 'valibot';
import type { StoredLeg } from '../storage.js';
import { isSource } from '../source.js';
import { ID_PATTERN } from './reference-data.js';
import { wasFilled } from './airports.js';
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
  const result = v.safeParse(importRecordSchema(options.today, options), record);
  const sourceIssue = wrongSource(record, options.source);
  if (result.success && !sourceIssue) {
    if (options.source !== undefined) result.output.source = options.source;
    return { ok: true, leg: result.output };
  }
  const seen = new Set<string | null>();
  const issues: FieldIssue[] = [];
  for (const issue of result.issues ?? []) {
    const field = fieldOf(issue);
    // The whole-record issues (not an object) are kept once; per field, the first rule wins.
    if (seen.has(field)) continue;
    seen.add(field);
    issues.push({ field, rule: issue.message });
  }
  if (sourceIssue && !seen.has('source')) issues.push(sourceIssue);
  return { ok: false, issues };
}

/** With a source given for the whole file, a record that names another (well-formed) one is refused. */
function wrongSource(record: object, source: string | undefined): FieldIssue | undefined {
  const given = (record as { source?: unknown }).source;
  if (source === undefined || given === undefined || given === source || !isSource(given)) return undefined;
  return { field: 'source', rule: `must be ${show(source)}, the source this file is loaded for, got ${show(given)}` };
}

export function describePosition(at: RecordPosition): string {
  return `${at.kind} ${at.n}`;
}

export function importError(at: RecordPosition | null, field: string | null, rule: string): ImportError {
  const where = at ? describePosition(at) : 'file';
  return { at, field, rule, message: field ? `${where}: ${field}: ${rule}` : `${where}: ${rule}` };
}

/**
 * Collects validated records one at a time (a file is read as a stream), then refuses duplicate
 * ids when the file is complete: every occurrence is an error that names the others. Memory is
 * the valid legs, the errors, and one position per distinct id.
 */
export class ImportCollector {
  private readonly legs: { leg: StoredLeg; at: RecordPosition }[] = [];
  private readonly errors: ImportError[] = [];
  private readonly positionsById = new Map<string, RecordPosition[]>();
  private readonly invalid = new Set<string>();
  private records = 0;
  private filled = 0;
  private uncategorized = 0;

  constructor(private readonly options: ImportOptions) {}

  /** A record parsed from the file, at its position. */
  add(record: unknown, at: RecordPosition): void {
    this.records += 1;
    const id = typeof record === 'object' && record !== null ? (record as { id?: unknown }).id : undefined;
    if (typeof id === 'string' && ID_PATTERN.test(id)) {
      const list = this.positionsById.get(id);
      if (list) list.push(at);
      else this.positionsById.set(id, [at]);
    }
    const result = validateImportRecord(record, this.options);
    if (result.ok) {
      this.legs.push({ leg: result.leg, at });
      if (wasFilled(record as Record<string, unknown>, result.leg as unknown as Record<string, unknown>)) this.filled += 1;
      // A category given that named none: stored as null (only with --allow-unknown-categories).
      if (result.leg.aircraftType === null && typeof (record as { aircraftType?: unknown }).aircraftType === 'string') this.uncategorized += 1;
      return;
    }
    this.invalid.add(describePosition(at));
    for (const issue of result.issues) this.errors.push(importError(at, issue.field, issue.rule));
  }

  /** A record that is not JSON (an NDJSON line): an error of that record. */
  addBroken(at: RecordPosition, rule: string): void {
    this.records += 1;
    this.invalid.add(describePosition(at));
    this.errors.push(importError(at, null, rule));
  }

  /** The legs (file order) and errors (file order; per record, field errors before a duplicate id). */
  finish(): Omit<ImportResult, 'format' | 'fatal'> {
    const errors = [...this.errors];
    const duplicated = new Set<string>();
    for (const [id, positions] of this.positionsById) {
      if (positions.length < 2) continue;
      duplicated.add(id);
      for (const at of positions) {
        const others = positions.filter((p) => p !== at).map(describePosition);
        errors.push(importError(at, 'id', `duplicate id ${show(id)}, also at ${others.join(', ')}`));
        this.invalid.add(describePosition(at));
      }
    }
    // Stable: a record's own errors stay before its duplicate-id error.
    errors.sort((a, b) => (a.at?.n ?? 0) - (b.at?.n ?? 0));
    return {
      legs: this.legs.filter(({ leg }) => !duplicated.has(leg.id)).map(({ leg }) => leg),
      errors,
      records: this.records,
      invalidRecords: this.invalid.size,
      filled: this.filled,
      uncategorized: this.uncategorized,
    };
  }
}

/**
 * Validates parsed records. `positions[i]` says where record i sits in its file (default: index i).
 * Refuses duplicate ids (every occurrence, naming the others). Legs come back in input order.
 */
export function validateImportRecords(
  records: readonly unknown[],
  options: ImportOptions & { positions?: readonly RecordPosition[] },
): Omit<ImportResult, 'format' | 'fatal'> {
  const collector = new ImportCollector(options);
  records.forEach((record, i) => collector.add(record, options.positions?.[i] ?? { kind: 'index', n: i }));
  return collector.finish();
}
