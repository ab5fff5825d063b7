/**
 * The import format (docs/import-format.md), pure: text in, legs and errors out, one module per
 * concern (docs/storage.md, "The import format modules").
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
export { findJsonSyntaxError, findTooDeep } from './text/json-syntax.js';
export { FILE_LIMITS, MAX_ERRORS_KEPT, MAX_FILE_BYTES, MAX_FILE_RECORDS, MAX_JSON_DEPTH, type FileLimits } from './file-limits.js';
export { MAX_LINE_CHARS, parseImportText, readImportStream, type StreamImportOptions } from './text/parse-text.js';
export type { ImportError, ImportOptions, ImportResult, RecordPosition } from './types.js';
