import type { AircraftCategory as Category } from '../../src/kernel/aircraft-category.js';
import type { AmenityType } from '../../src/kernel/model.js';

/**
 * Real business aircraft and fictional operators for the demo data.
 *
 * Seats are a typical executive configuration; `firstYear`/`lastYear` bound the year of manufacture
 * (lastYear undefined: still built). Price bands are rough one-way empty-leg prices in USD.
 */
/** The demo's categories: those of the vocabulary (src/kernel/aircraft-category.ts) its jets and turboprops fall in. */
export type AircraftCategory = Exclude<Category, 'Piston' | 'Airliner' | 'Helicopter'>;

export interface AircraftModel {
  model: string;
  category: AircraftCategory;
  seats: number;
  firstYear: number;
  lastYear?: number;
  /** Image file name under the demo image host. */
  image: string;
}

const A = (
  model: string,
  category: AircraftCategory,
  seats: number,
  firstYear: number,
  lastYear?: number,
): AircraftModel => ({
  model,
  category,
  seats,
  firstYear,
  ...(lastYear !== undefined ? { lastYear } : {}),
  image: `${model.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}.jpg`,
});

export const AIRCRAFT: readonly AircraftModel[] = [
  A('Pilatus PC-12 NGX', 'Turboprop', 8, 2019),
  A('Beechcraft King Air 350i', 'Turboprop', 9, 2009),
  A('Piaggio P.180 Avanti EVO', 'Turboprop', 7, 2014),
  A('Embraer Phenom 100EV', 'Very Light Jet', 4, 2017),
  A('Cessna Citation M2', 'Very Light Jet', 6, 2013),
  A('HondaJet Elite', 'Very Light Jet', 5, 2018),
  A('Cessna Citation CJ3+', 'Light Jet', 7, 2014),
  A('Cessna Citation CJ4', 'Light Jet', 8, 2010),
  A('Embraer Phenom 300E', 'Light Jet', 7, 2018),
  A('Pilatus PC-24', 'Light Jet', 8, 2018),
  A('Learjet 75 Liberty', 'Light Jet', 6, 2020, 2022),
  A('Cessna Citation XLS+', 'Midsize Jet', 8, 2008),
  A('Cessna Citation Latitude', 'Midsize Jet', 9, 2015),
  A('Hawker 800XP', 'Midsize Jet', 8, 1995, 2005),
  A('Learjet 60XR', 'Midsize Jet', 7, 2007, 2012),
  A('Embraer Praetor 500', 'Midsize Jet', 9, 2019),
  A('Bombardier Challenger 350', 'Super Midsize Jet', 9, 2014),
  A('Bombardier Challenger 3500', 'Super Midsize Jet', 10, 2022),
  A('Cessna Citation Longitude', 'Super Midsize Jet', 12, 2019),
  A('Embraer Praetor 600', 'Super Midsize Jet', 10, 2019),
  A('Gulfstream G280', 'Super Midsize Jet', 10, 2012),
  A('Dassault Falcon 2000LXS', 'Super Midsize Jet', 10, 2014),
  A('Bombardier Challenger 650', 'Heavy Jet', 12, 2015),
  A('Bombardier Challenger 605', 'Heavy Jet', 12, 2007, 2015),
  A('Dassault Falcon 900LX', 'Heavy Jet', 12, 2010),
  A('Dassault Falcon 7X', 'Heavy Jet', 14, 2007),
  A('Gulfstream G450', 'Heavy Jet', 14, 2005, 2018),
  A('Embraer Legacy 600', 'Heavy Jet', 13, 2002, 2020),
  A('Gulfstream G650ER', 'Ultra Long Range', 16, 2014),
  A('Gulfstream G550', 'Ultra Long Range', 16, 2003, 2021),
  A('Gulfstream G700', 'Ultra Long Range', 19, 2024),
  A('Bombardier Global 6000', 'Ultra Long Range', 14, 2012, 2019),
  A('Bombardier Global 7500', 'Ultra Long Range', 17, 2018),
  A('Dassault Falcon 8X', 'Ultra Long Range', 14, 2016),
];

/** Rough one-way empty-leg price band per category, in USD. */
export const PRICE_BAND_USD: Readonly<Record<AircraftCategory, readonly [number, number]>> = {
  Turboprop: [2_500, 9_000],
  'Very Light Jet': [3_000, 10_000],
  'Light Jet': [4_000, 15_000],
  'Midsize Jet': [6_000, 20_000],
  'Super Midsize Jet': [9_000, 30_000],
  'Heavy Jet': [14_000, 45_000],
  'Ultra Long Range': [25_000, 95_000],
};

/** Units of a currency per USD (rounded; demo prices only). */
export const PER_USD: Readonly<Record<string, number>> = {
  USD: 1,
  EUR: 0.92,
  GBP: 0.79,
  CHF: 0.88,
  AED: 3.67,
  CAD: 1.37,
  AUD: 1.52,
  SGD: 1.34,
  HKD: 7.8,
  BRL: 5.4,
  ZAR: 18.2,
  JPY: 150,
};

export interface Operator {
  name: string;
  /** ISO country of the operator's air operator certificate; decides the registration prefix. */
  country: string;
  currency: string;
}

/** Fictional operators (any likeness to a real company is unintended). */
export const OPERATORS: readonly Operator[] = [
  { name: 'Hudson Executive Jets', country: 'US', currency: 'USD' },
  { name: 'Pacific Crest Aviation', country: 'US', currency: 'USD' },
  { name: 'Lone Star Charter', country: 'US', currency: 'USD' },
  { name: 'Summit Air Partners', country: 'US', currency: 'USD' },
  { name: 'Maple Leaf Executive', country: 'CA', currency: 'CAD' },
  { name: 'Thames Valley Jets', country: 'GB', currency: 'GBP' },
  { name: 'Isle Air Management', country: 'IM', currency: 'GBP' },
  { name: 'Riviera Aviation', country: 'FR', currency: 'EUR' },
  { name: 'Lac Léman Executive', country: 'CH', currency: 'CHF' },
  { name: 'Alpenblick Air', country: 'AT', currency: 'EUR' },
  { name: 'Hanse Business Flights', country: 'DE', currency: 'EUR' },
  { name: 'Mediterranean Wings', country: 'MT', currency: 'EUR' },
  { name: 'Lusitania Jet Services', country: 'PT', currency: 'EUR' },
  { name: 'Falcon Crest Aviation', country: 'AE', currency: 'AED' },
  { name: 'Atlantic Private Aviation', country: 'BM', currency: 'USD' },
  { name: 'Harbour Jet Asia', country: 'HK', currency: 'HKD' },
  { name: 'Lion City Executive', country: 'SG', currency: 'SGD' },
  { name: 'Southern Cross Jets', country: 'AU', currency: 'AUD' },
  { name: 'Highveld Air Charter', country: 'ZA', currency: 'ZAR' },
  { name: 'Paulista Executive', country: 'BR', currency: 'BRL' },
];

/**
 * Registration patterns by operator country (ICAO nationality mark first): `@` a letter, `#` a
 * digit, anything else literal. US marks are N-numbers; the others the usual blocks for business jets.
 */
export const REGISTRATION_PATTERNS: Readonly<Record<string, readonly string[]>> = {
  US: ['N###@@', 'N##@@', 'N####@', 'N#@@', 'N###'],
  CA: ['C-F@@@', 'C-G@@@'],
  GB: ['G-@@@@'],
  IM: ['M-@@@@'],
  FR: ['F-H@@@'],
  CH: ['HB-J@@', 'HB-V@@'],
  AT: ['OE-G@@', 'OE-H@@'],
  DE: ['D-A@@@', 'D-C@@@', 'D-I@@@'],
  MT: ['9H-@@@'],
  PT: ['CS-D@@'],
  AE: ['A6-@@@'],
  BM: ['VP-B@@', 'VQ-B@@'],
  HK: ['B-@@@'],
  SG: ['9V-@@@'],
  AU: ['VH-@@@'],
  ZA: ['ZS-@@@'],
  BR: ['PR-@@@', 'PS-@@@'],
};

/** Amenity names and descriptions per type. */
export const AMENITY_TEXTS: Readonly<Record<AmenityType, readonly (readonly [name: string, desc: string])[]>> = {
  wifi: [
    ['Wi-Fi', 'Ka-band high-speed internet, fast enough for video calls and streaming'],
    ['Wi-Fi', 'Gogo Avance L5 connectivity over North America'],
    ['Internet', 'Satellite internet with worldwide coverage; email and browsing'],
  ],
  smoking: [
    ['Smoking allowed', 'Smoking permitted on board with the operator\'s prior agreement'],
    ['Non-smoking', 'Smoking is not permitted on this aircraft'],
  ],
  pets: [
    ['Pets welcome', 'Cats and dogs travel in the cabin; bring the pet\'s travel documents'],
    ['Small pets only', 'Pets under 10 kg in a carrier, subject to destination rules'],
  ],
  bed: [
    ['Flat beds', 'Seats convert into full-length flat beds for overnight flights'],
    ['Private stateroom', 'Aft stateroom with a fixed double bed'],
    ['Divan', 'Three-place divan that converts into a berth'],
  ],
  toilet: [
    ['Enclosed lavatory', 'Private aft lavatory with vanity'],
    ['Lavatory', 'Fully enclosed lavatory with hot and cold water'],
    ['Belted lavatory', 'Emergency-use toilet; the seat can be belted for take-off'],
  ],
  medical: [
    ['Defibrillator', 'AED and advanced first-aid kit on board'],
    ['Medical kit', 'Extended medical kit with remote physician support via MedAire'],
    ['Oxygen', 'Supplemental medical oxygen available on request'],
  ],
};
