import type { StoredLeg } from '../../kernel/leg-item.js';
import type { FileLimits } from './file-limits.js';
import type { SchemaOptions } from './schema.js';

/** What reading an import file gives: legs, and errors that say where, which field and which rule. */

/** Where a record sits: `index` (0-based) in a JSON array, `line` (1-based) in NDJSON. */
export interface RecordPosition {
  kind: 'index' | 'line';
  n: number;
}

export interface ImportError {
  /** The record (or, for a JSON syntax error, the line); null for the file as a whole. */
  at: RecordPosition | null;
  /** The field, e.g. `depAirportIcao` or `amenities[1].amenityName`; null for the whole record. */
  field: string | null;
  /** The rule broken, e.g. `must be 4 letters (ICAO), got "EGL"`. */
  rule: string;
  /** One line: `line 13: depAirportIcao: must be 4 letters (ICAO), got "EGL"`. */
  message: string;
}

export interface ImportResult {
  /** The valid legs, in file order. */
  legs: StoredLeg[];
  /** The first errors, in file order (at most MAX_ERRORS_KEPT, src/loading/import/file-limits.ts). */
  errors: ImportError[];
  /** Errors found beyond those kept. */
  moreErrors: number;
  /** Records found in the file (valid or not). */
  records: number;
  /** Records refused (each has at least one error). */
  invalidRecords: number;
  /** Valid records with airport fields they left empty filled from the airport reference. */
  filled: number;
  /** Valid records whose aircraftType named no category, stored as null (`--allow-unknown-categories`). */
  uncategorized: number;
  /** True when the file as a whole could not be read (e.g. broken JSON array): nothing is usable. */
  fatal: boolean;
  format: 'json' | 'ndjson';
}

export interface ImportOptions extends SchemaOptions {
  /** The load day, `yyyy-MM-dd` (UTC): the listing horizon and the year limits count from it. */
  today: string;
  /**
   * The source the whole file is loaded for (`legs:load --source NAME`): a record without `source`
   * gets it, a record that names another source is refused. Undefined: each record's own, else `default`.
   */
  source?: string | undefined;
  /** Tighter limits than FILE_LIMITS (tests); each one left out is the default. */
  limits?: Partial<FileLimits> | undefined;
}
