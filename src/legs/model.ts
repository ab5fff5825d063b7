/** The API's EmptyLeg and Amenity (docs/api.md), and the mapping from a stored item. */

export const AMENITY_TYPES = ['wifi', 'smoking', 'pets', 'bed', 'toilet', 'medical'] as const;
export type AmenityType = (typeof AMENITY_TYPES)[number];

export interface Amenity {
  amenityType: AmenityType;
  amenityName: string;
  amenityDesc: string;
}

export interface EmptyLeg {
  id: string;
  startDate: string;
  endDate: string;
  depCityName: string;
  depAirportName: string | null;
  depAirportIcao: string | null;
  depAirportIata: string | null;
  depCountryName: string | null;
  depCountryCode: string | null;
  arrCityName: string;
  arrAirportName: string | null;
  arrAirportIcao: string | null;
  arrAirportIata: string | null;
  arrCountryName: string | null;
  arrCountryCode: string | null;
  airlineName: string | null;
  aircraftModelName: string | null;
  aircraftType: string | null;
  registration: string | null;
  aircraftImg: string | null;
  makeYear: number | null;
  renovateYear: number | null;
  seatNum: number | null;
  price: number | null;
  currency: string | null;
  amenities: Amenity[];
}

/** The fields of an EmptyLeg (docs/api.md, "EmptyLeg"), in the order the API returns them. */
export const EMPTY_LEG_FIELDS = [
  'id',
  'startDate',
  'endDate',
  'depCityName',
  'depAirportName',
  'depAirportIcao',
  'depAirportIata',
  'depCountryName',
  'depCountryCode',
  'arrCityName',
  'arrAirportName',
  'arrAirportIcao',
  'arrAirportIata',
  'arrCountryName',
  'arrCountryCode',
  'airlineName',
  'aircraftModelName',
  'aircraftType',
  'registration',
  'aircraftImg',
  'makeYear',
  'renovateYear',
  'seatNum',
  'price',
  'currency',
  'amenities',
] as const satisfies readonly (keyof EmptyLeg)[];

type Stored = Readonly<Record<string, unknown>>;

function str(item: Stored, name: string): string | null {
  const v = item[name];
  return typeof v === 'string' ? v : null;
}

function num(item: Stored, name: string): number | null {
  const v = item[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function amenities(item: Stored): Amenity[] {
  const v = item.amenities;
  if (!Array.isArray(v)) return [];
  return v.flatMap((a: unknown): Amenity[] => {
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

/**
 * Builds the API record from a stored item: exactly the fields of an EmptyLeg (docs/api.md), in order, nullable
 * fields as null when unknown, and nothing else (no listing state, index key or timezone).
 */
export function toApiRecord(item: Stored): EmptyLeg {
  return {
    id: str(item, 'id') ?? '',
    startDate: str(item, 'startDate') ?? '',
    endDate: str(item, 'endDate') ?? '',
    depCityName: str(item, 'depCityName') ?? '',
    depAirportName: str(item, 'depAirportName'),
    depAirportIcao: str(item, 'depAirportIcao'),
    depAirportIata: str(item, 'depAirportIata'),
    depCountryName: str(item, 'depCountryName'),
    depCountryCode: str(item, 'depCountryCode'),
    arrCityName: str(item, 'arrCityName') ?? '',
    arrAirportName: str(item, 'arrAirportName'),
    arrAirportIcao: str(item, 'arrAirportIcao'),
    arrAirportIata: str(item, 'arrAirportIata'),
    arrCountryName: str(item, 'arrCountryName'),
    arrCountryCode: str(item, 'arrCountryCode'),
    airlineName: str(item, 'airlineName'),
    aircraftModelName: str(item, 'aircraftModelName'),
    aircraftType: str(item, 'aircraftType'),
    registration: str(item, 'registration'),
    aircraftImg: str(item, 'aircraftImg'),
    makeYear: num(item, 'makeYear'),
    renovateYear: num(item, 'renovateYear'),
    seatNum: num(item, 'seatNum'),
    price: num(item, 'price'),
    currency: str(item, 'currency'),
    amenities: amenities(item),
  };
}
