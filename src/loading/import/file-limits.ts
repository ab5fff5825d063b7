/**
 * What one import file may hold (docs/import-format.md, "Limits"). Past a file limit nothing of the
 * file is usable; past a line limit that line is a bad record; the errors kept are capped.
 */

/** The largest file read, in bytes (the command and the ingest function alike). */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;

/** The most records a file may hold (NDJSON: non-blank lines; JSON array: elements). */
export const MAX_FILE_RECORDS = 200_000;

/** The longest NDJSON line read; a record is a few KB at most, so a longer line is not one. */
export const MAX_LINE_CHARS = 1_000_000;

/** The deepest nesting of `[` and `{` in a record: the record is 1, its amenities 2, an amenity 3. */
export const MAX_JSON_DEPTH = 16;

/** Errors kept for a file, in file order; the others are counted (`moreErrors`). */
export const MAX_ERRORS_KEPT = 100;

/** The limits a reader applies; tests and callers may tighten them. */
export interface FileLimits {
  maxFileBytes: number;
  maxFileRecords: number;
  maxLineChars: number;
  maxJsonDepth: number;
  maxErrorsKept: number;
}

export const FILE_LIMITS: FileLimits = {
  maxFileBytes: MAX_FILE_BYTES,
  maxFileRecords: MAX_FILE_RECORDS,
  maxLineChars: MAX_LINE_CHARS,
  maxJsonDepth: MAX_JSON_DEPTH,
  maxErrorsKept: MAX_ERRORS_KEPT,
};
