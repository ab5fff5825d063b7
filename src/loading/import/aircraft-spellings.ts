import { AIRCRAFT_CATEGORIES, categoryNamed, spellingKey, type AircraftCategory } from '../../kernel/aircraft-category.js';

/**
 * The feeds' other names of each category (docs/import-format.md, "Aircraft categories"), which
 * the import maps to the vocabulary (src/kernel/aircraft-category.ts). Written as spelling keys (lower
 * case, no blanks, hyphens, underscores, dots or slashes); a plural `s` is read without it.
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

const BY_KEY: ReadonlyMap<string, AircraftCategory> = new Map(
  AIRCRAFT_CATEGORIES.flatMap((c) => [[spellingKey(c), c] as const, ...OTHER_NAMES[c].map((k) => [k, c] as const)]),
);

/**
 * The category `text` names: its name or another name above, ignoring case, blanks, hyphens,
 * underscores, dots, slashes and a plural `s` (`Super-Mid`, `VLJ`, `Large jets`); undefined when it
 * names none.
 */
export function categoryOf(text: string): AircraftCategory | undefined {
  return categoryNamed(text, BY_KEY);
}

/** The other names of a category (for tests). */
export function otherNames(category: AircraftCategory): readonly string[] {
  return OTHER_NAMES[category];
}
