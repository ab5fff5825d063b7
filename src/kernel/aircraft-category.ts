/**
 * The aircraft categories, smallest cabin first (docs/api.md, "Aircraft categories"); stored as the
 * letter of their position, so a category is only ever added at the end (docs/storage.md).
 */
export const AIRCRAFT_CATEGORIES = [
  'Piston',
  'Turboprop',
  'Very Light Jet',
  'Light Jet',
  'Midsize Jet',
  'Super Midsize Jet',
  'Heavy Jet',
  'Ultra Long Range',
  'Airliner',
  'Helicopter',
] as const;
export type AircraftCategory = (typeof AIRCRAFT_CATEGORIES)[number];

/** The accepted categories, for a message: `Piston, Turboprop, ..., Helicopter`. */
export const CATEGORY_LIST = AIRCRAFT_CATEGORIES.join(', ');

/** The key a spelling is looked up by: NFKC, lower case, without blanks, hyphens, underscores, dots and slashes. */
export function spellingKey(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[\s\-_./]+/gu, '');
}

/** Category by the key of its name (`verylightjet`). */
const BY_KEY = new Map(AIRCRAFT_CATEGORIES.map((c) => [spellingKey(c), c]));

/**
 * The category whose name `text` is, ignoring case, blanks, hyphens, underscores, dots, slashes and
 * a plural `s` (`LIGHT-JETS` is `Light Jet`); undefined for any other text.
 */
export function categoryNamed(text: string, byKey: ReadonlyMap<string, AircraftCategory> = BY_KEY): AircraftCategory | undefined {
  const key = spellingKey(text);
  return byKey.get(key) ?? (key.endsWith('s') ? byKey.get(key.slice(0, -1)) : undefined);
}

/** The category's bit in a set of categories (the index entry and the filter hold sets as bit masks). */
export function categoryBit(category: AircraftCategory): number {
  return 1 << AIRCRAFT_CATEGORIES.indexOf(category);
}
