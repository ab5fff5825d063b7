import { AppError } from '../errors.js';
import { httpFunction, type HttpHandler } from './middleware.js';

/** The `$default` route: any path or method the API does not have answers NOT_FOUND in the envelope. */
export function createNotFoundHandler(): HttpHandler {
  return httpFunction().handler((event) => {
    throw new AppError('NOT_FOUND', `No route for ${event.requestContext.http.method} ${event.rawPath}`);
  });
}
