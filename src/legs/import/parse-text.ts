import { findJsonSyntaxError, lineColumn } from './json-syntax.js';
import type { ImportError, ImportOptions, ImportResult } from './types.js';
import { ImportCollector, importError, validateImportRecords } from './validate.js';

/** Reading the text of an import file: a JSON array or NDJSON, then validation of its records. */

/** The longest NDJSON line read; a record is a few KB at most, so a longer line is not one. */
export const MAX_LINE_CHARS = 1_000_000;

function jsonError(text: string, err: unknown, unit: 'file' | 'line'): { line: number; rule: string } {
  const found = findJsonSyntaxError(text, unit);
  if (found) {
    const { line, column } = lineColumn(text, found.offset);
    return { line, rule: `invalid JSON at column ${column}: ${found.reason}` };
  }
  return { line: 1, rule: `invalid JSON: ${err instanceof Error ? err.message : String(err)}` };
}

/** The text of a JSON array file to its result (a syntax error is fatal: nothing is usable). */
export function parseJsonArrayText(body: string, options: ImportOptions): ImportResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    const { line, rule } = jsonError(body, err, 'file');
    return { legs: [], errors: [importError({ kind: 'line', n: line }, null, rule)], records: 0, invalidRecords: 0, filled: 0, uncategorized: 0, fatal: true, format: 'json' };
  }
  return { ...validateImportRecords(parsed as unknown[], options), fatal: false, format: 'json' };
}

/**
 * NDJSON, one line at a time (lines numbered from 1, blank lines counted and skipped): a broken
 * line is an error of that line only. Used for a whole text and for a stream alike.
 */
export class NdjsonLines {
  readonly collector: ImportCollector;
  private n = 0;
  /** Lines that held a JSON value / lines that were not JSON. */
  parsed = 0;
  broken = 0;

  constructor(options: ImportOptions) {
    this.collector = new ImportCollector(options);
  }

  /** The next line, without its line end. */
  line(text: string): void {
    this.n += 1;
    const at = { kind: 'line', n: this.n } as const;
    if (text.length > MAX_LINE_CHARS) {
      this.broken += 1;
      this.collector.addBroken(at, `line longer than ${MAX_LINE_CHARS} characters: not one record`);
      return;
    }
    if (text.trim() === '') return;
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
    if (text !== undefined && this.broken > 0 && this.parsed === 0 && /\S/.exec(text)?.[0] === '{') {
      const lone = loneObjectError(text);
      if (lone) return { legs: [], errors: [lone], records: 0, invalidRecords: 0, filled: 0, uncategorized: 0, fatal: true, format: 'json' };
    }
    return { ...this.collector.finish(), fatal: false, format: 'ndjson' };
  }
}

function loneObjectError(text: string): ImportError | undefined {
  try {
    JSON.parse(text);
  } catch {
    return undefined; // not one JSON value either: report the lines
  }
  return importError(null, null, 'a JSON file must be an array of records ([...]); NDJSON has one record per line');
}

const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/**
 * Parses and validates the text of an import file. A text whose first non-blank character is `[`
 * is a JSON array (positions are 0-based indexes); anything else is NDJSON (one object per line,
 * blank lines allowed, positions are 1-based lines). A broken JSON array is one fatal error with
 * its line and column; a broken NDJSON line is an error of that line only.
 */
export function parseImportText(text: string, options: ImportOptions): ImportResult {
  const body = stripBom(text);
  if (/\S/.exec(body)?.[0] === '[') return parseJsonArrayText(body, options);
  const reader = new NdjsonLines(options);
  for (const line of body.split(/\r?\n/)) reader.line(line);
  return reader.finish(body);
}

export interface StreamImportOptions extends ImportOptions {
  /** The largest JSON array read, in bytes (a JSON array is parsed whole). Default: no limit. */
  maxJsonBytes?: number;
}

/** Text kept from the start of an NDJSON stream for the pretty-printed object check. */
const HEAD_CHARS = 1_000_000;

/**
 * Reads an import file from a stream of bytes. NDJSON is read line by line, so memory holds the
 * valid legs and the errors, never the file; a JSON array is read whole, up to `maxJsonBytes`
 * (beyond it the result is one fatal error and the rest of the stream is not read). The result is
 * the one `parseImportText` gives for the same bytes (UTF-8, byte-order mark dropped).
 */
export async function readImportStream(
  chunks: AsyncIterable<Uint8Array | string>,
  options: StreamImportOptions,
): Promise<ImportResult> {
  const decoder = new TextDecoder('utf-8');
  const maxJsonBytes = options.maxJsonBytes ?? Number.POSITIVE_INFINITY;
  const lines = new NdjsonLines(options);
  let mode: 'unknown' | 'json' | 'ndjson' = 'unknown';
  let bytes = 0;
  /** unknown/json: all the text so far; ndjson: the text after the last complete line. */
  let pending = '';
  /** ndjson: the start of the text (whole when `head.length < HEAD_CHARS`). */
  let head = '';
  /** ndjson: inside a line longer than MAX_LINE_CHARS, already reported. */
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
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n', start)) {
      lines.line(pending.slice(start, nl > start && pending.charCodeAt(nl - 1) === 13 ? nl - 1 : nl));
      start = nl + 1;
    }
    pending = pending.slice(start);
    if (final) {
      lines.line(pending);
    } else if (pending.length > MAX_LINE_CHARS) {
      lines.line(pending); // reported as too long
      pending = '';
      skipping = true;
    }
  };

  for await (const chunk of chunks) {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (mode === 'ndjson') {
      ndjson(text, false);
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
        continue;
      }
      mode = 'json';
      pending = body;
    }
    if (bytes > maxJsonBytes) return tooLarge(maxJsonBytes);
  }
  const rest = decoder.decode();
  if (mode === 'json') return parseJsonArrayText(pending + rest, options);
  if (mode === 'unknown') return parseImportText(pending + rest, options);
  ndjson(rest, true);
  return lines.finish(head.length < HEAD_CHARS ? head : undefined);
}

function tooLarge(maxJsonBytes: number): ImportResult {
  const mb = Math.round((maxJsonBytes / 1_048_576) * 10) / 10;
  return {
    legs: [],
    errors: [importError(null, null, `a JSON array is read whole and may be at most ${mb} MB here; send a larger feed as NDJSON (one record per line)`)],
    records: 0,
    invalidRecords: 0,
    filled: 0,
    uncategorized: 0,
    fatal: true,
    format: 'json',
  };
}
