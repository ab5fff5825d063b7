import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one structured JSON logger. The level comes from POWERTOOLS_LOG_LEVEL (or Lambda's own log
 * level setting); handlers add the request's `traceId` with `appendKeys`. Nothing may log an API
 * key: only key ids and short hash prefixes.
 */
export const logger = new Logger({ serviceName: 'empty-legs' });
