import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one structured JSON logger. Handlers add the request's `traceId` with `appendKeys`; nothing
 * that logs may pass an API key (only key ids and hashes' prefixes).
 */
export const logger = new Logger({
  serviceName: 'empty-legs',
  logLevel: (process.env.LOG_LEVEL ?? 'INFO') as 'INFO',
});
