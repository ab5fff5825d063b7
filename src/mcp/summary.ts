import type { EmptyLeg } from '../kernel/model.js';
import type { LegsPage } from '../listing/index.js';
import type { SourceView } from '../sources/index.js';
import type { Watch } from '../watches/index.js';

/** The short texts beside the tools' structured answers (a person or a model reads them). Pure. */
type Leg = EmptyLeg & { convertedPrice?: { amount: number; currency: string } | null };

function place(city: string, icao: string | null, iata: string | null): string {
  const code = icao ?? iata;
  return code === null ? city : `${city} (${code})`;
}

function price(leg: Leg): string {
  const own = leg.price === null ? 'price on request' : `${leg.price} ${leg.currency ?? ''}`.trim();
  const converted = leg.convertedPrice;
  return converted ? `${own} (about ${converted.amount} ${converted.currency})` : own;
}

/** Lines of the records, which are never changed after they are made (src/listing/list-legs.ts): each made once. */
const lines = new WeakMap<Leg, string>();

/** One leg in a line: id, route, dates, aircraft, seats, price. */
export function legLine(leg: Leg): string {
  let line = lines.get(leg);
  if (line === undefined) lines.set(leg, (line = lineOf(leg)));
  return line;
}

function lineOf(leg: Leg): string {
  const dates = leg.startDate === leg.endDate ? `on ${leg.startDate}` : `between ${leg.startDate} and ${leg.endDate}`;
  const aircraft = [leg.aircraftModelName, leg.aircraftType].filter((s) => s !== null && s !== '').join(', ') || 'aircraft not given';
  const seats = leg.seatNum === null ? 'seats not given' : `${leg.seatNum} seats`;
  return `${leg.id}: ${place(leg.depCityName, leg.depAirportIcao, leg.depAirportIata)} -> ${place(leg.arrCityName, leg.arrAirportIcao, leg.arrAirportIata)}, ${dates}, ${aircraft}, ${seats}, ${price(leg)}`;
}

export function pageText(page: LegsPage): string {
  const pages = Math.max(1, Math.ceil(page.total / page.size));
  if (page.total === 0) return 'No empty leg matches these parameters (not an error: widen the dates, the area or the filters).';
  const head = `${page.total} empty leg${page.total === 1 ? '' : 's'} match; page ${page.page} of ${pages}, ${page.size} a page`;
  if (page.records.length === 0) return `${head}: this page is past the last one.`;
  return [`${head}:`, ...page.records.map((leg) => `- ${legLine(leg)}`)].join('\n');
}

export function watchLine(watch: Watch): string {
  const filters = Object.entries(watch.filters).map(([k, v]) => `${k}=${String(v)}`).join(', ') || 'every leg';
  return `${watch.id} (${watch.status}) -> ${watch.url}: ${filters}${watch.description ? ` - ${watch.description}` : ''}`;
}

export function watchesText(watches: readonly Watch[]): string {
  if (watches.length === 0) return 'This client has no watches.';
  return [`${watches.length} watch${watches.length === 1 ? '' : 'es'}:`, ...watches.map((w) => `- ${watchLine(w)}`)].join('\n');
}

export function sourceLine(source: SourceView): string {
  const state = [source.kind, source.verified ? 'verified' : 'not verified', source.stale ? 'stale' : undefined].filter((s) => s !== undefined).join(', ');
  const loaded = source.lastLoadedAt === null ? 'no load recorded' : `last loaded ${source.lastLoadedAt}`;
  return `${source.id} (${source.name}): ${state}; ${source.legsListed} leg${source.legsListed === 1 ? '' : 's'} listed, ${loaded}`;
}

export function sourcesText(sources: readonly SourceView[]): string {
  if (sources.length === 0) return 'No source is registered and no leg is listed.';
  return [`${sources.length} source${sources.length === 1 ? '' : 's'}:`, ...sources.map((s) => `- ${sourceLine(s)}`)].join('\n');
}

/** An enquiry as POST .../enquiries answers it (docs/openapi.yaml, `CreatedEnquiry`): what its text reads. */
export interface Enquiry {
  id: string;
  legId: string;
  status: string;
  passengers: number;
  expiresAt: string;
  secret?: string;
  [field: string]: unknown;
}

export function enquiryText(enquiry: Enquiry, replayed: boolean): string {
  const first = replayed ? ' (the first answer to this idempotencyKey again: no new enquiry was made)' : '';
  const secret = enquiry.secret === undefined ? '' : " Its notifyUrl's signing secret is in the structured answer; it is not shown again.";
  return `Enquiry ${enquiry.id} (${enquiry.status}) for leg ${enquiry.legId}, ${enquiry.passengers} passenger${enquiry.passengers === 1 ? '' : 's'}${first}; it expires at ${enquiry.expiresAt} unless the seller answers.${secret}`;
}
