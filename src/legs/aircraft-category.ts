/**
 * The aircraft categories (docs/import-format.md, "Aircraft categories"): the one vocabulary of
 * `aircraftType`, what the import maps the feeds' spellings to, and what the `aircraftType` filter
 * takes. Pure.
 *
 * The classes business aviation sells by, from the smallest cabin to the largest, plus the
 * helicopter: charter brokers and operators quote by these classes (cabin size and range), so a
 * buyer asking for "a light jet or bigger" finds the legs a feed files under any spelling of them.
 * Airliners are one class whatever their cabin (VIP, group charter or regional): the seat count,
 * which the `minSeats` filter reads, tells them apart better than the feeds' labels do.
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

/**
 * Other names of each category, as spelling keys (`spellingKey`: lower case, no spaces, hyphens,
 * underscores, dots or slashes). A key ending in `s` that is not listed is read without it
 * (`Light Jets`). Each category's own name is accepted as well.
 */
const OTHER_NAMES: Readonly<Record<AircraftCategory, readonly string[]>> = {
  Piston: ['singlepiston', 'pistonsingle', 'twinpiston', 'pistontwin', 'pistonengine', 'pistonaircraft'],
  Turboprop: ['turbopropeller', 'singleturboprop', 'twinturboprop', 'turbopropaircraft'],
  'Very Light Jet': ['vlj', 'verylight'],
  'Light Jet': ['light'],
  'Midsize Jet': ['midsize', 'midsized', 'midsizedjet', 'mid', 'midjet', 'medium', 'mediumjet'],
  'Super Midsize Jet': ['supermidsize', 'supermidsized', 'supermidsizedjet', 'supermid', 'supermidjet'],
  'Heavy Jet': ['heavy', 'large', 'largejet', 'largecabin', 'largecabinjet'],
  'Ultra Long Range': ['ulr', 'ulrjet', 'ultralongrangejet', 'longrange', 'longrangejet'],
  Airliner: ['vipairliner', 'bizliner', 'businessliner', 'businessairliner', 'executiveairliner', 'corporateairliner', 'jetliner', 'regionaljet', 'regionalairliner'],
  Helicopter: ['heli', 'rotorcraft'],
};

const SEPARATORS = /[\s\-_./]+/gu;

/** The key a spelling is looked up by: NFKC, lower case, without spaces, hyphens, underscores, dots and slashes. */
export function spellingKey(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(SEPARATORS, '');
}

const BY_KEY: ReadonlyMap<string, AircraftCategory> = new Map(
  AIRCRAFT_CATEGORIES.flatMap((c) => [[spellingKey(c), c] as const, ...OTHER_NAMES[c].map((k) => [k, c] as const)]),
);
const EXACT: ReadonlySet<string> = new Set(AIRCRAFT_CATEGORIES);

/** The category `text` names (any case, spacing, hyphenation, plural or other name above); undefined when it names none. */
export function categoryOf(text: string): AircraftCategory | undefined {
  if (EXACT.has(text)) return text as AircraftCategory;
  const key = spellingKey(text);
  return BY_KEY.get(key) ?? (key.endsWith('s') ? BY_KEY.get(key.slice(0, -1)) : undefined);
}

/** The accepted categories, for a message: `Piston, Turboprop, ..., Helicopter`. */
export const CATEGORY_LIST = AIRCRAFT_CATEGORIES.join(', ');

/** The category's bit in a set of categories (the index entry and the filter hold sets as bit masks). */
export function categoryBit(category: AircraftCategory): number {
  return 1 << AIRCRAFT_CATEGORIES.indexOf(category);
}

/** The other names of a category (for tests and the documentation's table). */
export function otherNames(category: AircraftCategory): readonly string[] {
  return OTHER_NAMES[category];
}
