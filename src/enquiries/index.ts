/** What other folders may use of enquiries/: its public surface (eslint.boundaries.js). */
export { createEnquiryExpiry, expireEnquiriesOfLeg } from './use-cases/expire.js';
export { readSeller, writeSeller, sellerItemId, type Seller } from './store/sellers.js';
export type { EnquiryDependencies, EnquiryNotifier } from './use-cases/ports.js';
export { createEnquiryNotifier, ENQUIRY_MESSAGE_KIND, processEnquiryMessage, type EnquiryDeliveryDependencies } from './events/deliver.js';
export { postEnquiry } from './use-cases/create.js';
export { KEY_PATTERN as ENQUIRY_KEY_PATTERN, KEY_RULE as ENQUIRY_KEY_RULE } from './idempotency/key.js';
export { enquiryPortsOf } from './wiring.js';
