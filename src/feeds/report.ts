import type { FeedLoadOutcome } from '../loading/index.js';
import type { ImportError, ImportResult } from '../loading/index.js';
import type { LoadMode, PlanCounts, SourcePlan } from '../loading/index.js';
import type { NewerApplied, SyncFile } from './sync-order.js';

/** A feed file's report (docs/deploy.md, "Feeds"): what was read, loaded, refused and why. */
export type ReportStatus = 'loaded' | 'refused' | 'failed';

export interface ReportError {
  line?: number;
  index?: number;
  field: string | null;
  rule: string;
  message: string;
}

export interface FeedReport {
  file: string;
  versionId: string | null;
  mode: LoadMode;
  status: ReportStatus;
  /** Why a file was refused or failed, in one line; null when loaded. */
  reason: string | null;
  startedAt: string;
  finishedAt: string;
  table: string;
  format: 'json' | 'ndjson' | null;
  records: number;
  validLegs: number;
  invalidRecords: number;
  /** Legs written with the file's content, and legs unlisted (sync). */
  written: number;
  unlisted: number;
  /** Sync: the planned counts, in total and per source. */
  counts: Omit<PlanCounts, 'inListing' | 'leaving'> | null;
  sources: SourcePlan[];
  /** Sync: sources the guard stopped. */
  guard: { source: string; inListing: number; leaving: number }[];
  /** Sync: when S3 stored this file (its order among the source's sync files); null otherwise. */
  storedAt: string | null;
  /** Sync: sources whose last applied sync file is newer than this one (the file is then refused). */
  newerApplied: { source: string; file: string; versionId: string | null; storedAt: string }[];
  /** The first refused records' errors (file order): where, which field, which rule. */
  errors: ReportError[];
  /** Errors found beyond those listed in `errors`. */
  moreErrors: number;
}

function reportError(e: ImportError): ReportError {
  const at = e.at ? (e.at.kind === 'line' ? { line: e.at.n } : { index: e.at.n }) : {};
  return { ...at, field: e.field, rule: e.rule, message: e.message };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The report of a file that was read (valid or not) and, when valid, loaded or stopped by the guard. */
export function buildReport(
  base: Pick<FeedReport, 'file' | 'versionId' | 'mode' | 'startedAt' | 'finishedAt' | 'table'>,
  parsed: ImportResult,
  outcome: FeedLoadOutcome | undefined,
  order: { file: SyncFile; newer: readonly NewerApplied[] } | undefined = undefined,
): FeedReport {
  const plan = outcome?.plan;
  let status: ReportStatus = 'loaded';
  let reason: string | null = null;
  if (parsed.fatal) {
    status = 'refused';
    reason = `the file cannot be read as the import format: ${parsed.errors[0]?.rule ?? 'unknown error'}; nothing was written`;
  } else if (parsed.invalidRecords > 0) {
    status = 'refused';
    reason = `${plural(parsed.invalidRecords, 'invalid record')} of ${parsed.records}; nothing was written`;
  } else if (order && order.newer.length > 0) {
    status = 'refused';
    reason =
      order.newer
        .map((n) => `source ${n.source} last applied ${n.newer.file} (stored ${new Date(n.newer.storedAt).toISOString()}), newer than this file (stored ${new Date(order.file.storedAt).toISOString()})`)
        .join('; ') + '. Nothing was written: a late or repeated older sync file never undoes a newer one (docs/deploy.md, section Feeds)';
  } else if (outcome?.status === 'refused' && plan) {
    status = 'refused';
    reason =
      plan.refusals.map((r) => `source ${r.source} would lose ${r.leaving} of its ${plural(r.inListing, 'leg')} in the listing`).join('; ') +
      ' (more than half): a truncated feed? Nothing was written; to sync it anyway, run legs:load --sync --force';
  }
  const totals = plan?.totals;
  return {
    ...base,
    status,
    reason,
    format: parsed.format,
    records: parsed.records,
    validLegs: parsed.legs.length,
    invalidRecords: parsed.invalidRecords,
    written: outcome?.written ?? 0,
    unlisted: outcome?.unlisted ?? 0,
    counts: totals ? { new: totals.new, changed: totals.changed, unchanged: totals.unchanged, unlist: totals.unlist } : null,
    sources: plan?.bySource ?? [],
    guard: plan?.refusals ?? [],
    storedAt: order ? new Date(order.file.storedAt).toISOString() : null,
    newerApplied: (order?.newer ?? []).map((n) => ({
      source: n.source,
      file: n.newer.file,
      versionId: n.newer.versionId,
      storedAt: new Date(n.newer.storedAt).toISOString(),
    })),
    errors: parsed.errors.map(reportError),
    moreErrors: parsed.moreErrors,
  };
}
