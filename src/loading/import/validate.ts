import * as v from 'valibot';
import type { StoredLeg } from '../../kernel/leg-item.js';
import { isSource } from '../../kernel/source.js';
import { MAX_ERRORS_KEPT } from './file-limits.js';
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

/** A field name as messages show it: cut short past 60 characters (no field of the format is that long). */
const shortName = (name: string) => (name.length > 60 ? `${name.slice(0, 57)}...` : name);

function fieldOf(issue: Issue): string | null {
  let field = '';
  for (const item of issue.path ?? []) {
    const key = (item as { key: unknown }).key;
    if (typeof key === 'number') field += `[${key}]`;
    else field += field === '' ? shortName(String(key)) : `.${shortName(String(key))}`;
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

/** A stored id seen in the file: where it first was, where next, and how often. */
interface IdSeen {
  first: RecordPosition;
  /** The second occurrence, once there is one. */
  second: RecordPosition | undefined;
  count: number;
}

/**
 * Collects validated records one at a time, refusing duplicate ids: every occurrence is an error
 * naming the first (the first names the next and how many more). Linear in the file; memory is the
 * valid legs, an entry per distinct id and per invalid record, and at most `maxErrorsKept` errors.
 */
export class ImportCollector {
  private readonly legs: { leg: StoredLeg; at: RecordPosition }[] = [];
  /** Errors in file order, up to the cap, but for the first occurrences of duplicated ids. */
  private readonly errors: ImportError[] = [];
  private errorCount = 0;
  private readonly ids = new Map<string, IdSeen>();
  private readonly invalid = new Set<string>();
  private readonly maxErrors: number;
  private records = 0;
  private filled = 0;
  private uncategorized = 0;

  constructor(private readonly options: ImportOptions) {
    this.maxErrors = options.limits?.maxErrorsKept ?? MAX_ERRORS_KEPT;
  }

  /** Records read so far. */
  get count(): number {
    return this.records;
  }

  private error(at: RecordPosition, field: string | null, rule: string): void {
    this.errorCount += 1;
    if (this.errors.length < this.maxErrors) this.errors.push(importError(at, field, rule));
  }

  /** A record parsed from the file, at its position. */
  add(record: unknown, at: RecordPosition): void {
    this.records += 1;
    const id = typeof record === 'object' && record !== null ? (record as { id?: unknown }).id : undefined;
    let firstAt: RecordPosition | undefined;
    if (typeof id === 'string' && ID_PATTERN.test(id)) {
      const seen = this.ids.get(id);
      if (seen) {
        seen.count += 1;
        seen.second ??= at;
        firstAt = seen.first;
      } else this.ids.set(id, { first: at, second: undefined, count: 1 });
    }
    const result = validateImportRecord(record, this.options);
    if (result.ok) {
      if (!firstAt) this.legs.push({ leg: result.leg, at });
      if (wasFilled(record as Record<string, unknown>, result.leg as unknown as Record<string, unknown>)) this.filled += 1;
      // A category given that named none: stored as null (only with --allow-unknown-categories).
      if (result.leg.aircraftType === null && typeof (record as { aircraftType?: unknown }).aircraftType === 'string') this.uncategorized += 1;
    } else {
      for (const issue of result.issues) this.error(at, issue.field, issue.rule);
    }
    if (!result.ok || firstAt) this.invalid.add(describePosition(at));
    if (firstAt) this.error(at, 'id', `duplicate id ${show(id)}, first at ${describePosition(firstAt)}`);
  }

  /** A record that is not JSON (an NDJSON line): an error of that record. */
  addBroken(at: RecordPosition, rule: string): void {
    this.records += 1;
    this.invalid.add(describePosition(at));
    this.error(at, null, rule);
  }

  /** The legs (file order) and errors (file order; per record, field errors before a duplicate id). */
  finish(): Omit<ImportResult, 'format' | 'fatal'> {
    // The first occurrence of each duplicated id, in file order, merged into the kept errors.
    const firsts: ImportError[] = [];
    const duplicated = new Set<string>();
    for (const [id, seen] of this.ids) {
      if (seen.count < 2) continue;
      duplicated.add(id);
      this.invalid.add(describePosition(seen.first));
      const more = seen.count - 2;
      const rest = more > 0 ? ` and ${more} more ${more === 1 ? 'record' : 'records'}` : '';
      firsts.push(importError(seen.first, 'id', `duplicate id ${show(id)}, also at ${describePosition(seen.second!)}${rest}`));
    }
    firsts.sort((a, b) => a.at!.n - b.at!.n);
    const errors: ImportError[] = [];
    let i = 0;
    let j = 0;
    while (errors.length < this.maxErrors && (i < this.errors.length || j < firsts.length)) {
      // Stable: a record's own errors stay before its duplicate-id error.
      const takeKept = j >= firsts.length || (i < this.errors.length && (this.errors[i]!.at?.n ?? 0) <= firsts[j]!.at!.n);
      errors.push(takeKept ? this.errors[i++]! : firsts[j++]!);
    }
    const total = this.errorCount + firsts.length;
    return {
      legs: this.legs.filter(({ leg }) => !duplicated.has(leg.id)).map(({ leg }) => leg),
      errors,
      moreErrors: total - errors.length,
      records: this.records,
      invalidRecords: this.invalid.size,
      filled: this.filled,
      uncategorized: this.uncategorized,
    };
  }
}

/**
 * Validates parsed records. `positions[i]` says where record i sits in its file (default: index i).
 * Refuses duplicate ids (every occurrence). Legs come back in input order.
 */
export function validateImportRecords(
  records: readonly unknown[],
  options: ImportOptions & { positions?: readonly RecordPosition[] },
): Omit<ImportResult, 'format' | 'fatal'> {
  const collector = new ImportCollector(options);
  records.forEach((record, i) => collector.add(record, options.positions?.[i] ?? { kind: 'index', n: i }));
  return collector.finish();
}
