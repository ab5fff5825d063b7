import { findJsonSyntaxError, lineColumn } from './json-syntax.js';
import type { ImportError, ImportOptions, ImportResult, RecordPosition } from './types.js';
import { importError, validateImportRecords } from './validate.js';

/** Reading the text of an import file: a JSON array or NDJSON, then validation of its records. */

function jsonError(text: string, err: unknown, unit: 'file' | 'line'): { line: number; rule: string } {
  const found = findJsonSyntaxError(text, unit);
  if (found) {
    const { line, column } = lineColumn(text, found.offset);
    return { line, rule: `invalid JSON at column ${column}: ${found.reason}` };
  }
  return { line: 1, rule: `invalid JSON: ${err instanceof Error ? err.message : String(err)}` };
}

/**
 * Parses and validates the text of an import file. A text whose first non-blank character is `[`
 * is a JSON array (positions are 0-based indexes); anything else is NDJSON (one object per line,
 * blank lines allowed, positions are 1-based lines). A broken JSON array is one fatal error with
 * its line and column; a broken NDJSON line is an error of that line only.
 */
export function parseImportText(text: string, options: ImportOptions): ImportResult {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const first = /\S/.exec(body);
  if (first?.[0] === '[') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (err) {
      const { line, rule } = jsonError(body, err, 'file');
      return {
        legs: [],
        errors: [importError({ kind: 'line', n: line }, null, rule)],
        records: 0,
        invalidRecords: 0,
        fatal: true,
        format: 'json',
      };
    }
    const records = parsed as unknown[];
    return { ...validateImportRecords(records, options), fatal: false, format: 'json' };
  }

  const lines = body.split(/\r?\n/);
  const records: unknown[] = [];
  const positions: RecordPosition[] = [];
  const lineErrors: ImportError[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const record: unknown = JSON.parse(line);
      records.push(record);
      positions.push({ kind: 'line', n: i + 1 });
    } catch (err) {
      const { rule } = jsonError(line, err, 'line');
      lineErrors.push(importError({ kind: 'line', n: i + 1 }, null, rule));
    }
  });

  // A pretty-printed JSON object (not an array) fails on every line: say what the format is.
  if (lineErrors.length > 0 && records.length === 0 && first?.[0] === '{') {
    try {
      JSON.parse(body);
      return {
        legs: [],
        errors: [importError(null, null, 'a JSON file must be an array of records ([...]); NDJSON has one record per line')],
        records: 0,
        invalidRecords: 0,
        fatal: true,
        format: 'json',
      };
    } catch {
      // not one JSON value either: report the lines
    }
  }

  const result = validateImportRecords(records, { ...options, positions });
  const errors = [...lineErrors, ...result.errors].sort(
    (a, b) => (a.at?.n ?? 0) - (b.at?.n ?? 0),
  );
  return {
    legs: result.legs,
    errors,
    records: result.records + lineErrors.length,
    invalidRecords: result.invalidRecords + lineErrors.length,
    fatal: false,
    format: 'ndjson',
  };
}
