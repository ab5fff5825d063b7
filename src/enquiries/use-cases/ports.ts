import type { Clock } from '../../clock.js';
import type { LegReader } from '../../leg-by-id/index.js';
import type { Resolver, TargetPolicy } from '../../watches/index.js';
import type { EnquiryRecord } from '../domain/enquiry.js';
import type { Seller } from '../store/sellers.js';
import type { EnquiryTable } from '../store/enquiries.js';

/** The enquiries' events (docs/enquiries.md, "Events"): to the seller's URL, or the broker's `notifyUrl`. */
export type EnquiryEventType = 'enquiry.created' | 'enquiry.answered' | 'enquiry.expired';

export interface EnquiryEvent {
  type: EnquiryEventType;
  enquiry: EnquiryRecord;
}

/** Queues each event for its receiver's signed delivery; must bear an event given twice (its webhook id is the same). */
export type EnquiryNotifier = (events: readonly EnquiryEvent[]) => Promise<void>;

/** The use cases' ports: the enquiries table, the leg and its seller, the clock, the URL checks, the events. */
export interface EnquiryDependencies {
  table: EnquiryTable;
  readLeg: LegReader;
  readSeller: (source: string) => Promise<Seller | undefined>;
  clock: Clock;
  targets: TargetPolicy;
  resolver: Resolver;
  notify?: EnquiryNotifier | undefined;
}

/** The calling key's client and scopes. */
export interface Caller {
  clientId: string;
  scopes: readonly string[];
}
