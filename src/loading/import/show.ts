/** A value as it appears in a message: JSON, cut short. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  let s: string | undefined;
  try {
    s = JSON.stringify(value);
  } catch {
    s = undefined;
  }
  s ??= `a ${typeof value}`;
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
