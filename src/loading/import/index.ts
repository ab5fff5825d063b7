/**
 * The import format (docs/import-format.md): a JSON array or NDJSON of records in the API's
 * EmptyLeg shape plus `listed`, `blocked`, `depTimezone`, `source`, and optionally `departureAt`
 * instead of `startDate`. Everything here is pure: text in, legs and errors out. One module per concern:
 *   reference-data  country and currency codes, limits
 *   instant         ISO 8601 instants with an offset, IANA zone names
 *   suggest         "did you mean" for unknown field names
 *   schema          the record's valibot schema
 *   validate        records to legs and field errors
 *   json-syntax     where a JSON text is broken, or nested too deep (no recursion)
 *   file-limits     what one file may hold: bytes, records, line length, depth, errors kept
 *   parse-text      a file's text, or a stream of its bytes, to records (JSON array or NDJSON)
 */
export { COUNTRY_CODES, CURRENCY_CODES } from './reference-data.js';
export { isIanaTimeZone, parseInstant } from './instant.js';
export { importRecordSchema, type ImportRecord } from './schema.js';
export {
  describePosition,
  ImportCollector,
  validateImportRecord,
  validateImportRecords,
  type FieldIssue,
  type RecordResult,
} from './validate.js';
export { findJsonSyntaxError, findTooDeep } from './json-syntax.js';
export { FILE_LIMITS, MAX_ERRORS_KEPT, MAX_FILE_BYTES, MAX_FILE_RECORDS, MAX_JSON_DEPTH, type FileLimits } from './file-limits.js';
export { MAX_LINE_CHARS, parseImportText, readImportStream, type StreamImportOptions } from './parse-text.js';
export type { ImportError, ImportOptions, ImportResult, RecordPosition } from './types.js';
