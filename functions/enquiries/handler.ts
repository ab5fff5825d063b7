import { createFunctionClient } from '../../src/aws/function-clients.js';
import { enquiriesFunctionConfig } from '../../src/config.js';
import { createEnquiriesHandler } from '../../src/enquiries/handlers.js';
import { enquiryPortsOf } from '../../src/enquiries/index.js';

/** The enquiry routes (src/routes.ts); the handlers are built by src/enquiries/handlers.ts. */
const config = enquiriesFunctionConfig();
export const handler = createEnquiriesHandler(enquiryPortsOf(config, createFunctionClient(config)));
