import { AppError } from '../errors.js';
import { httpFunction, type HttpHandler } from './middleware.js';

/** The `$default` route: any path or method the API does not have answers NOT_FOUND in the envelope. */
export function createNotFoundHandler(): HttpHandler {
  return httpFunction().handler((event) => {
    throw new AppError('NOT_FOUND', `No route for ${event.requestContext.http.method} ${event.rawPath}`);
  });
}

/** One function serving several routes: the handler of the event's route (API Gateway's routeKey), NOT_FOUND for any other. */
export function byRouteKey(handlers: Readonly<Record<string, HttpHandler>>): HttpHandler {
  const unknown = createNotFoundHandler();
  return (event, context) => (handlers[event.routeKey] ?? unknown)(event, context);
}
