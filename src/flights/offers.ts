import type { SourceKind } from '../sources/index.js';

/**
 * A flight's offers (docs/api.md, "Flights"): what each matching leg shows of itself, and the order
 * that names the best. Pure.
 */

/** What ranks an offer: its seller, how fresh, its price in euros. */
export interface OfferFacts {
  id: string;
  source: string;
  kind: SourceKind;
  verified: boolean;
  /** Epoch ms of its last confirmation; NaN when unknown. */
  confirmedAt: number;
  /** Its price in euros; null when it has none or its currency has no rate. */
  euros: number | null;
}

const KIND_RANK: Readonly<Record<SourceKind, number>> = { operator: 0, broker: 1, unknown: 2 };

/**
 * Best first: the operator before a broker (and a registered seller before an unknown one), verified
 * before not, the most recently confirmed, the cheapest in euros (unpriced last), then id.
 */
export function compareOffers(a: OfferFacts, b: OfferFacts): number {
  return (
    KIND_RANK[a.kind] - KIND_RANK[b.kind] ||
    Number(b.verified) - Number(a.verified) ||
    descendingKnown(a.confirmedAt, b.confirmedAt) ||
    ascendingKnown(a.euros ?? Number.NaN, b.euros ?? Number.NaN) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** Larger first, NaN last. */
function descendingKnown(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number(Number.isNaN(a)) - Number(Number.isNaN(b));
  return b - a;
}

/** Smaller first, NaN last. */
function ascendingKnown(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number(Number.isNaN(a)) - Number(Number.isNaN(b));
  return a - b;
}

/** An offer as a flight's record lists it (`offers`). */
export interface Offer {
  id: string;
  source: string;
  kind: SourceKind;
  verified: boolean;
  price: number | null;
  currency: string | null;
  confirmedAt: string | null;
}

export function offerOf(facts: OfferFacts, price: number, currency: string): Offer {
  return {
    id: facts.id,
    source: facts.source,
    kind: facts.kind,
    verified: facts.verified,
    price: Number.isNaN(price) ? null : price,
    currency: currency === '' ? null : currency,
    confirmedAt: Number.isNaN(facts.confirmedAt) ? null : new Date(facts.confirmedAt).toISOString(),
  };
}
