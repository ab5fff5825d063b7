import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { isUnavailable } from '../aws/unavailable.js';
import { AppError, ERROR_STATUS, type ErrorCode } from '../errors.js';

/** The response envelope (docs/api.md, "Envelope"), and the one mapper from any error to it. */
export interface Envelope<T> {
  code: 'OK' | ErrorCode;
  message: string;
  data: T | null;
  traceId: string;
}

export const SUCCESS_MESSAGE = 'success';

/** Headers of every response: JSON in UTF-8, never sniffed as another type, never cached. */
export const BASE_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
} as const;

export function respond<T>(status: number, envelope: Envelope<T>): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { ...BASE_HEADERS, 'x-trace-id': envelope.traceId },
    body: JSON.stringify(envelope),
  };
}

export function successResponse<T>(data: T, traceId: string): APIGatewayProxyStructuredResultV2 {
  return respond(200, { code: 'OK', message: SUCCESS_MESSAGE, data, traceId });
}

export interface MappedError {
  status: number;
  code: ErrorCode;
  message: string;
  /** True when the error is ours to fix (log at error level). */
  internal: boolean;
}

/**
 * Maps any thrown value to a status, code and public message. Only an AppError's own message is
 * shown; SDK texts, stack traces and internal details never reach a response.
 */
export function mapError(error: unknown): MappedError {
  if (error instanceof AppError) {
    return { status: error.status, code: error.code, message: error.message, internal: error.code === 'INTERNAL_ERROR' };
  }
  if (isUnavailable(error)) {
    return {
      status: ERROR_STATUS.SERVICE_UNAVAILABLE,
      code: 'SERVICE_UNAVAILABLE',
      message: 'The service is temporarily unavailable; retry later',
      internal: true,
    };
  }
  return { status: ERROR_STATUS.INTERNAL_ERROR, code: 'INTERNAL_ERROR', message: 'Internal error', internal: true };
}

export function errorResponse(error: unknown, traceId: string): APIGatewayProxyStructuredResultV2 {
  const mapped = mapError(error);
  return respond(mapped.status, { code: mapped.code, message: mapped.message, data: null, traceId });
}
