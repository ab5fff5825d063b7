/** Levenshtein distance between two strings. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The rule for an unknown field, with the closest known name as a hint when it is close. */
export function unknownFieldRule(name: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = Infinity;
  const lower = name.toLowerCase();
  for (const k of known) {
    // Names whose lengths differ by more than 3 are more than 3 edits apart: no hint, no work.
    if (Math.abs(lower.length - k.length) > 3) continue;
    const d = editDistance(lower, k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  const hint = best !== undefined && bestDistance <= 3 ? ` (did you mean ${best}?)` : '';
  return `is not a field of the import format${hint}`;
}
