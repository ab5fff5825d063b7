import * as v from 'valibot';
import { AIRCRAFT_CATEGORIES, categoryNamed } from './aircraft-category.js';

/**
 * The API's EmptyLeg and Amenity (docs/api.md), defined once: the valibot schema below is the one list
 * of the leg's fields, their order and nullability. The type, the field list and the mapping from a
 * stored item derive from it; the import's rules are type-checked against the same field list.
 */
export const AMENITY_TYPES = ['wifi', 'smoking', 'pets', 'bed', 'toilet', 'medical'] as const;
export type AmenityType = (typeof AMENITY_TYPES)[number];

export const AmenitySchema = v.object({
  amenityType: v.picklist(AMENITY_TYPES),
  amenityName: v.string(),
  amenityDesc: v.string(),
});
export type Amenity = v.InferOutput<typeof AmenitySchema>;

/** The most passenger seats a leg can have (`seatNum` is 1 to this; the import and `minSeats` check it). */
export const MAX_SEATS = 850;

const text = v.string();
const optionalText = v.nullable(v.string());
const optionalNumber = v.nullable(v.number());

/** The fields of an EmptyLeg, in the order the API returns them. */
export const EmptyLegSchema = v.object({
  id: text,
  startDate: text,
  endDate: text,
  depCityName: text,
  depAirportName: optionalText,
  depAirportIcao: optionalText,
  depAirportIata: optionalText,
  depCountryName: optionalText,
  depCountryCode: optionalText,
  arrCityName: text,
  arrAirportName: optionalText,
  arrAirportIcao: optionalText,
  arrAirportIata: optionalText,
  arrCountryName: optionalText,
  arrCountryCode: optionalText,
  airlineName: optionalText,
  aircraftModelName: optionalText,
  /** A category of the vocabulary (src/kernel/aircraft-category.ts). */
  aircraftType: v.nullable(v.picklist(AIRCRAFT_CATEGORIES)),
  registration: optionalText,
  aircraftImg: optionalText,
  makeYear: optionalNumber,
  renovateYear: optionalNumber,
  seatNum: optionalNumber,
  price: optionalNumber,
  currency: optionalText,
  amenities: v.array(AmenitySchema),
});
export type EmptyLeg = v.InferOutput<typeof EmptyLegSchema>;
export type EmptyLegField = keyof EmptyLeg;

/** The fields of an EmptyLeg, in the order the API returns them. */
export const EMPTY_LEG_FIELDS = Object.keys(EmptyLegSchema.entries) as readonly EmptyLegField[];

type Stored = Readonly<Record<string, unknown>>;

function amenities(value: unknown): Amenity[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((a: unknown): Amenity[] => {
    if (typeof a !== 'object' || a === null) return [];
    const r = a as Stored;
    const type = r.amenityType;
    if (typeof type !== 'string' || !(AMENITY_TYPES as readonly string[]).includes(type)) return [];
    return [
      {
        amenityType: type as AmenityType,
        amenityName: typeof r.amenityName === 'string' ? r.amenityName : '',
        amenityDesc: typeof r.amenityDesc === 'string' ? r.amenityDesc : '',
      },
    ];
  });
}

/** How one field is read from a stored item, derived from its schema. */
type Reader = (value: unknown) => unknown;

function readerFor(schema: v.GenericSchema): Reader {
  if (schema.type === 'array') return amenities;
  const nullable = schema.type === 'nullable';
  const inner = nullable ? (schema as v.NullableSchema<v.GenericSchema, undefined>).wrapped.type : schema.type;
  const read: Reader =
    inner === 'number'
      ? (value) => (typeof value === 'number' && Number.isFinite(value) ? value : null)
      : (value) => (typeof value === 'string' ? value : null);
  return nullable ? read : (value) => read(value) ?? '';
}

/**
 * A stored category: a leg loaded before the vocabulary may hold another text, read as the category
 * when it is a category's name in another case or spacing, else null (docs/api.md, "Aircraft categories").
 */
const readCategory: Reader = (value) => (typeof value === 'string' ? (categoryNamed(value) ?? null) : null);

const READERS = EMPTY_LEG_FIELDS.map(
  (field) => [field, field === 'aircraftType' ? readCategory : readerFor(EmptyLegSchema.entries[field])] as const,
);

/**
 * Builds the API record from a stored item: exactly the fields of an EmptyLeg, in order, nullable
 * fields as null when unknown, and nothing else (no listing state, index key or timezone).
 */
export function toApiRecord(item: Stored): EmptyLeg {
  const record: Record<string, unknown> = {};
  for (const [field, read] of READERS) record[field] = read(item[field]);
  return record as EmptyLeg;
}
