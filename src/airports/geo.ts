/**
 * Great-circle distance on a spherical Earth of the IUGG mean radius (the radius turf and most
 * GIS tools use). Airports are points; the error against the ellipsoid is under 0.5 %, far less than
 * the size of an airport's catchment.
 */
export const EARTH_RADIUS_KM = 6371.0088;

const RAD = Math.PI / 180;

/** Distance in km between two points given in degrees (haversine: stable at small distances). */
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * The latitudes (degrees) a point within `radiusKm` of latitude `lat` can have: the band the
 * nearby search looks in before it measures. Going over a pole folds back, so the band is clipped
 * to [-90, 90] (every longitude is then possible, which the distance itself decides).
 */
export function latitudeBand(lat: number, radiusKm: number): [min: number, max: number] {
  const delta = radiusKm / EARTH_RADIUS_KM / RAD;
  return [Math.max(-90, lat - delta), Math.min(90, lat + delta)];
}
