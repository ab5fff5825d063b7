/**
 * Typed errors of the service. Every error a caller can see is an AppError with one of the codes of
 * docs/api.md ("Errors"); anything else is mapped to INTERNAL_ERROR or SERVICE_UNAVAILABLE by the
 * one mapper in src/http/envelope.ts.
 */
export const ERROR_STATUS = {
  INVALID_PARAMETER: 400,
  API_KEY_MISSING: 401,
  API_KEY_INVALID: 401,
  API_KEY_EXPIRED: 401,
  API_KEY_WRONG_ENVIRONMENT: 401,
  PERMISSION_DENIED: 403,
  API_KEY_DEPRECATED: 403,
  NOT_FOUND: 404,
  WATCH_LIMIT_REACHED: 409,
  DELIVERY_NOT_REPLAYABLE: 409,
  KEY_NOT_ACTIVE: 409,
  LAST_WRITE_KEY: 409,
  KEY_LIMIT_REACHED: 409,
  ENQUIRIES_NOT_ACCEPTED: 409,
  ENQUIRY_LIMIT_REACHED: 409,
  ENQUIRY_CLOSED: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  CURSOR_EXPIRED: 410,
  IDEMPOTENCY_KEY_REUSED: 422,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Response headers of the answer (lower case), e.g. `retry-after` of a RATE_LIMITED. */
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; headers?: Readonly<Record<string, string>> }) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = options?.headers;
  }
}

/** `INVALID_PARAMETER` whose message names the parameter and the rule it breaks. */
export function invalidParameter(parameter: string, rule: string): AppError {
  return new AppError('INVALID_PARAMETER', `Invalid parameter '${parameter}': ${rule}`);
}

/** The one line that names a missing or bad setting and the rule it breaks. */
export function settingMessage(setting: string, rule: string): string {
  return `Invalid setting ${setting}: ${rule}`;
}

/** A setting (environment variable or command-line flag) that is missing or bad. */
export class ConfigError extends Error {
  readonly setting: string;

  constructor(setting: string, rule: string) {
    super(settingMessage(setting, rule));
    this.name = 'ConfigError';
    this.setting = setting;
  }
}
