import type { GuardRefusal, LoadPlan, SourcePlan } from '../src/loading/sync-plan.js';

/** What `legs:load` prints about a planned load or sync (one line per source, then a summary). */

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function sourceLine(s: SourcePlan): string {
  const counts = `${s.new} new, ${s.changed} changed, ${s.unchanged} unchanged`;
  if (!s.synced) return `source ${s.source}: ${counts}`;
  return `source ${s.source}: ${counts}, ${s.unlist} to unlist (${plural(s.inListing, 'leg')} in the listing, ${s.leaving} of them absent from the file)`;
}

export function planLines(plan: LoadPlan): string[] {
  return plan.bySource.map(sourceLine);
}

export function refusalLine(r: GuardRefusal): string {
  return (
    `source ${r.source} would lose ${r.leaving} of its ${plural(r.inListing, 'leg')} in the listing (more than half): ` +
    `a truncated feed?`
  );
}

export function moveLines(plan: LoadPlan, max: number): string[] {
  const lines = plan.moves.slice(0, max).map((m) => `id ${m.id} moves from source ${m.from} to source ${m.to}`);
  if (plan.moves.length > max) lines.push(`... and ${plan.moves.length - max} more ids that move from another source`);
  return lines;
}

/** How many valid records had airport fields filled in from the airport reference. */
export function filledLine(filled: number): string {
  return `Filled empty airport fields (name, the other code, country) of ${plural(filled, 'record')} from the airport reference`;
}

/** How many valid records had an aircraftType that named no category, stored as null (`--allow-unknown-categories`). */
export function uncategorizedLine(uncategorized: number): string {
  return `Stored aircraftType as null for ${plural(uncategorized, 'record')} whose aircraftType names no aircraft category (--allow-unknown-categories)`;
}
