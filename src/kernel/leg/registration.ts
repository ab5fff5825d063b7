/**
 * The last part of a listing entry's filter text (docs/storage.md, "The listing index"), after every
 * field: U+001E and the leg's registration (normalised), then, for a leg with departure times, U+001D
 * and `HHmm-HHmm` (either side empty when the feed gave none). What one flight reads (docs/api.md, "Flights").
 */
export const REGISTRATION_SEP = '\u001e';
export const TIMES_SEP = '\u001d';

/** A departure time of the import format (`depTimeFrom`, `depTimeTo`): HH:mm, 00:00 to 23:59. */
export const DEP_TIME_PATTERN = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/** A registration upper-cased without spaces and hyphens (`n-123 ab` is `N123AB`: docs/api.md, "Flights"); '' for none. */
export function normalizedRegistration(registration: string | null | undefined): string {
  return registration == null ? '' : registration.replace(/[\s-]/g, '').toUpperCase();
}

/** Where the fields of a filter text end: at REGISTRATION_SEP, or its length. */
export function fieldsEnd(text: string): number {
  const at = text.lastIndexOf(REGISTRATION_SEP);
  return at < 0 ? text.length : at;
}

/** The registration of an index entry (normalised), '' without one. */
export function registrationOf(entry: { text: string }): string {
  const at = entry.text.lastIndexOf(REGISTRATION_SEP);
  if (at < 0) return '';
  const times = entry.text.indexOf(TIMES_SEP, at + 1);
  return entry.text.slice(at + 1, times < 0 ? entry.text.length : times);
}

const compact = (time: string | null | undefined): string => (typeof time === 'string' && DEP_TIME_PATTERN.test(time) ? time.slice(0, 2) + time.slice(3) : '');

/** The last part for a leg: '' without a registration; its times only when it gives one of them. */
export function registrationField(registration: string | null | undefined, depTimeFrom?: string | null, depTimeTo?: string | null): string {
  const normalized = normalizedRegistration(registration);
  if (normalized === '') return '';
  const from = compact(depTimeFrom);
  const to = compact(depTimeTo);
  return REGISTRATION_SEP + normalized + (from === '' && to === '' ? '' : `${TIMES_SEP}${from}-${to}`);
}

/** An entry's departure times as its last part gives them (`HH:mm`, local to its departure airport); none when absent. */
export function departureTimesOf(entry: { text: string }): { depTimeFrom?: string; depTimeTo?: string } {
  const at = entry.text.lastIndexOf(REGISTRATION_SEP);
  const times = at < 0 ? -1 : entry.text.indexOf(TIMES_SEP, at + 1);
  if (times < 0) return {};
  const [from = '', to = ''] = entry.text.slice(times + 1).split('-');
  const out: { depTimeFrom?: string; depTimeTo?: string } = {};
  if (from.length === 4) out.depTimeFrom = `${from.slice(0, 2)}:${from.slice(2)}`;
  if (to.length === 4) out.depTimeTo = `${to.slice(0, 2)}:${to.slice(2)}`;
  return out;
}
