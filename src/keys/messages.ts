import type { Stage } from '../config.js';
import type { KeyEnvironment } from '../auth/verdict.js';
import { KEY_PREFIXES } from './format.js';
import type { LimitDecision } from './limits/limiter-ports.js';

/** The messages of the authorizer's refusals (docs/api.md, "Errors"): what a client reads. */
export const MESSAGES = {
  missing: 'An API key is required in the X-API-Key header',
  malformed: `The API key is malformed: expected ${KEY_PREFIXES.live} or ${KEY_PREFIXES.test} followed by 38 letters and digits`,
  badChecksum: 'The API key is not valid: its checksum does not match (check it for a typo)',
  invalid: 'The API key is not valid',
  unavailable: 'The service is temporarily unavailable; retry later',
  wrongOrigin: "This endpoint does not serve the API: call the API's published address",
} as const;

export function addressLimitedMessage(retryAfterSeconds: number): string {
  return `Too many failed authentications from this address; retry after ${retryAfterSeconds} s`;
}

export function rateLimitedMessage(decision: Pick<LimitDecision, 'limit' | 'retryAfterSeconds'>): string {
  return `Too many requests for this API key (limit ${decision.limit.rate} per second, burst ${decision.limit.burst}); retry after ${decision.retryAfterSeconds} s`;
}

export function clientRateLimitedMessage(decision: Pick<LimitDecision, 'limit' | 'retryAfterSeconds'>): string {
  return `Too many requests for this client, all its API keys together (limit ${decision.limit.rate} per second, burst ${decision.limit.burst}); retry after ${decision.retryAfterSeconds} s`;
}

const ENVIRONMENT_NAMES: Readonly<Record<KeyEnvironment, string>> = {
  live: 'the production environment (prod)',
  test: 'the sandbox environment (sandbox)',
};

export function wrongEnvironmentMessage(keyEnvironment: KeyEnvironment, stage: Stage): string {
  return `This is a ${keyEnvironment} key (${KEY_PREFIXES[keyEnvironment]}): it belongs to ${ENVIRONMENT_NAMES[keyEnvironment]} and is not accepted by ${stage}`;
}

export function expiredMessage(graceUntil: string | undefined): string {
  return `The API key has expired: it was rotated and its grace period ended${graceUntil ? ` at ${graceUntil}` : ''}; use the new key`;
}
