import { Logger } from '@aws-lambda-powertools/logger';
import { redactingReplacer } from './redact.js';

/**
 * The one structured JSON logger. The level comes from POWERTOOLS_LOG_LEVEL (or Lambda's own log
 * level setting); handlers add the request's `traceId` with `appendKeys`.
 *
 * Nothing may log an API key: call sites log key ids and short hash prefixes only, and, so that no
 * call site can forget, every log line is serialized through `redactingReplacer` (src/redact.ts),
 * which replaces anything shaped like a key in every string and object key of the line (the logged
 * path and raw query, error messages and stacks included).
 */
export const logger = new Logger({ serviceName: 'empty-legs', jsonReplacerFn: redactingReplacer });
