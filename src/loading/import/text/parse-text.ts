import { FILE_LIMITS, type FileLimits } from '../file-limits.js';
import { findJsonSyntaxError, findTooDeep, lineColumn } from './json-syntax.js';
import type { ImportError, ImportOptions, ImportResult } from '../types.js';
import { ImportCollector, importError, validateImportRecords } from '../validate.js';

/**
 * Reading the text of an import file: a JSON array or NDJSON, then validation of its records.
 * Linear in the file whatever it holds: nesting is checked before parsing (no recursion), lines,
 * records, bytes and the errors kept are bounded (src/loading/import/file-limits.ts).
 */

export { MAX_LINE_CHARS } from '../file-limits.js';

const limitsOf = (options: ImportOptions): FileLimits => ({ ...FILE_LIMITS, ...options.limits });

/** The decoder's mark for bytes that are not UTF-8. */
const REPLACEMENT = '\ufffd';

function jsonError(text: string, err: unknown, unit: 'file' | 'line'): { line: number; rule: string } {
  const found = findJsonSyntaxError(text, unit);
  if (found) {
    const { line, column } = lineColumn(text, found.offset);
    return { line, rule: `invalid JSON at column ${column}: ${found.reason}` };
  }
  return { line: 1, rule: `invalid JSON: ${err instanceof Error ? err.message : String(err)}` };
}

/** Why a text cannot be parsed safely (too deep, not UTF-8), with its line, before JSON.parse runs. */
function unsafeText(text: string, limits: FileLimits, depth: number): { line: number; rule: string } | undefined {
  const bad = text.indexOf(REPLACEMENT);
  if (bad >= 0) {
    const { line, column } = lineColumn(text, bad);
    return { line, rule: `not valid UTF-8 at column ${column} (bytes that are not UTF-8, or U+FFFD)` };
  }
  const deep = findTooDeep(text, depth);
  if (deep !== undefined) {
    const { line, column } = lineColumn(text, deep);
    return { line, rule: `nested deeper than ${limits.maxJsonDepth} levels at column ${column} (a record is 3 at most)` };
  }
  return undefined;
}

function fatal(error: ImportError, format: 'json' | 'ndjson'): ImportResult {
  return { legs: [], errors: [error], moreErrors: 0, records: 0, invalidRecords: 0, filled: 0, uncategorized: 0, fatal: true, format };
}

/** The text of a JSON array file to its result (a syntax error is fatal: nothing is usable). */
export function parseJsonArrayText(body: string, options: ImportOptions): ImportResult {
  const limits = limitsOf(options);
  // The array itself is one level.
  const unsafe = unsafeText(body, limits, limits.maxJsonDepth + 1);
  if (unsafe) return fatal(importError({ kind: 'line', n: unsafe.line }, null, unsafe.rule), 'json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    const { line, rule } = jsonError(body, err, 'file');
    return fatal(importError({ kind: 'line', n: line }, null, rule), 'json');
  }
  const records = parsed as unknown[];
  if (records.length > limits.maxFileRecords) return fatal(tooManyRecords(limits), 'json');
  return { ...validateImportRecords(records, options), fatal: false, format: 'json' };
}

function tooManyRecords(limits: FileLimits): ImportError {
  return importError(null, null, `the file has more than ${limits.maxFileRecords} records, the most one file may hold; split it`);
}

function tooManyBytes(limits: FileLimits): ImportError {
  const mb = Math.round((limits.maxFileBytes / 1_048_576) * 10) / 10;
  return importError(null, null, `the file is larger than ${mb} MB (${limits.maxFileBytes} bytes), the most one file may be; split it`);
}

/**
 * NDJSON, one line at a time (lines numbered from 1, blank lines counted and skipped): a broken
 * line is an error of that line only. Used for a whole text and for a stream alike.
 */
export class NdjsonLines {
  readonly collector: ImportCollector;
  readonly limits: FileLimits;
  private n = 0;
  /** Lines that held a JSON value / lines that were not JSON. */
  parsed = 0;
  broken = 0;

  constructor(options: ImportOptions) {
    this.collector = new ImportCollector(options);
    this.limits = limitsOf(options);
  }

  /** True once the file holds more records than a file may. */
  get overLimit(): boolean {
    return this.collector.count > this.limits.maxFileRecords;
  }

  /** The next line, without its line end. */
  line(text: string): void {
    this.n += 1;
    const at = { kind: 'line', n: this.n } as const;
    if (text.length > this.limits.maxLineChars) {
      this.broken += 1;
      this.collector.addBroken(at, `line longer than ${this.limits.maxLineChars} characters: not one record`);
      return;
    }
    if (text.trim() === '') return;
    const unsafe = unsafeText(text, this.limits, this.limits.maxJsonDepth);
    if (unsafe) {
      this.broken += 1;
      this.collector.addBroken(at, unsafe.rule);
      return;
    }
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (err) {
      this.broken += 1;
      this.collector.addBroken(at, jsonError(text, err, 'line').rule);
      return;
    }
    this.parsed += 1;
    this.collector.add(record, at);
  }

  /**
   * The result. `text`, when the whole file is at hand: a pretty-printed JSON object (every line
   * broken) is then refused as a whole with a note on the format.
   */
  finish(text: string | undefined): ImportResult {
    if (this.overLimit) return fatal(tooManyRecords(this.limits), 'ndjson');
    if (text !== undefined && this.broken > 0 && this.parsed === 0 && /\S/.exec(text)?.[0] === '{') {
      const lone = loneObjectError(text, this.limits);
      if (lone) return fatal(lone, 'json');
    }
    return { ...this.collector.finish(), fatal: false, format: 'ndjson' };
  }
}

function loneObjectError(text: string, limits: FileLimits): ImportError | undefined {
  if (unsafeText(text, limits, limits.maxJsonDepth)) return undefined;
  try {
    JSON.parse(text);
  } catch {
    return undefined; // not one JSON value either: report the lines
  }
  return importError(null, null, 'a JSON file must be an array of records ([...]); NDJSON has one record per line');
}

const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/**
 * Parses and validates the text of an import file: a JSON array when its first non-blank character
 * is `[`, else NDJSON (docs/import-format.md, "The file"). A broken JSON array, or a file over a
 * limit, is one fatal error; a broken NDJSON line is an error of that line only.
 */
export function parseImportText(text: string, options: ImportOptions): ImportResult {
  const limits = limitsOf(options);
  const body = stripBom(text);
  const json = /\S/.exec(body)?.[0] === '[';
  if (Buffer.byteLength(text) > limits.maxFileBytes) return fatal(tooManyBytes(limits), json ? 'json' : 'ndjson');
  if (json) return parseJsonArrayText(body, options);
  const reader = new NdjsonLines(options);
  for (const line of body.split(/\r?\n/)) {
    reader.line(line);
    if (reader.overLimit) break;
  }
  return reader.finish(body);
}

export interface StreamImportOptions extends ImportOptions {
  /** The largest JSON array read, in bytes (a JSON array is parsed whole). Default: the file limit. */
  maxJsonBytes?: number | undefined;
}

/** Text kept from the start of an NDJSON stream for the pretty-printed object check. */
const HEAD_CHARS = 1_000_000;

/**
 * Reads an import file from a stream of bytes, with the result `parseImportText` gives for the same
 * bytes: NDJSON line by line (memory holds the legs, never the file), a JSON array whole up to
 * `maxJsonBytes`; past that, or past a file limit, one fatal error, and the rest is not read.
 */
export async function readImportStream(
  chunks: AsyncIterable<Uint8Array | string>,
  options: StreamImportOptions,
): Promise<ImportResult> {
  const limits = limitsOf(options);
  const decoder = new TextDecoder('utf-8');
  const maxJsonBytes = Math.min(options.maxJsonBytes ?? Number.POSITIVE_INFINITY, limits.maxFileBytes);
  const lines = new NdjsonLines(options);
  let mode: 'unknown' | 'json' | 'ndjson' = 'unknown';
  let bytes = 0;
  /** unknown/json: all the text so far; ndjson: the text after the last complete line. */
  let pending = '';
  /** ndjson: the start of the text (whole when `head.length < HEAD_CHARS`). */
  let head = '';
  /** ndjson: inside a line longer than the line limit, already reported. */
  let skipping = false;

  const ndjson = (text: string, final: boolean) => {
    if (head.length < HEAD_CHARS) head += text.slice(0, HEAD_CHARS - head.length);
    if (skipping) {
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      skipping = false;
      text = text.slice(nl + 1);
    }
    pending += text;
    let start = 0;
    for (let nl = pending.indexOf('\n'); nl >= 0 && !lines.overLimit; nl = pending.indexOf('\n', start)) {
      lines.line(pending.slice(start, nl > start && pending.charCodeAt(nl - 1) === 13 ? nl - 1 : nl));
      start = nl + 1;
    }
    pending = pending.slice(start);
    if (lines.overLimit) return;
    if (final) {
      lines.line(pending);
    } else if (pending.length > limits.maxLineChars) {
      lines.line(pending); // reported as too long
      pending = '';
      skipping = true;
    }
  };

  for await (const chunk of chunks) {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (bytes > limits.maxFileBytes && mode !== 'json') return fatal(tooManyBytes(limits), mode === 'unknown' ? formatOf(pending + text) : mode);
    if (mode === 'ndjson') {
      ndjson(text, false);
      if (lines.overLimit) return lines.finish(undefined);
      continue;
    }
    pending += text;
    if (mode === 'unknown') {
      const body = stripBom(pending);
      const first = /\S/.exec(body)?.[0];
      if (first === undefined) continue;
      if (first !== '[') {
        mode = 'ndjson';
        pending = '';
        ndjson(body, false);
        if (lines.overLimit) return lines.finish(undefined);
        continue;
      }
      mode = 'json';
      pending = body;
    }
    if (bytes > maxJsonBytes) return maxJsonBytes < limits.maxFileBytes ? tooLarge(maxJsonBytes) : fatal(tooManyBytes(limits), 'json');
  }
  const rest = decoder.decode();
  if (mode === 'json') return parseJsonArrayText(pending + rest, options);
  if (mode === 'unknown') return parseImportText(pending + rest, options);
  ndjson(rest, true);
  return lines.finish(head.length < HEAD_CHARS ? head : undefined);
}

const formatOf = (text: string): 'json' | 'ndjson' => (/\S/.exec(stripBom(text))?.[0] === '[' ? 'json' : 'ndjson');

function tooLarge(maxJsonBytes: number): ImportResult {
  const mb = Math.round((maxJsonBytes / 1_048_576) * 10) / 10;
  return fatal(importError(null, null, `a JSON array is read whole and may be at most ${mb} MB here; send a larger feed as NDJSON (one record per line)`), 'json');
}
