import { Logger } from '@aws-lambda-powertools/logger';
import { redactingReplacer } from './auth/redact.js';

/**
 * The one structured JSON logger (level: POWERTOOLS_LOG_LEVEL, or Lambda's own setting); handlers add
 * the request's `traceId` with `appendKeys`. Every line goes through `redactingReplacer`, which
 * replaces anything shaped like an API key (docs/api-keys.md, "Storage").
 */
export const logger = new Logger({ serviceName: 'empty-legs', jsonReplacerFn: redactingReplacer });
