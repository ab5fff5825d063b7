import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { AppError } from '../errors.js';
import { clientIdOf } from '../keys/index.js';
import { respond, successResponse } from '../http/envelope.js';
import { jsonBody } from '../http/json-body.js';
import { httpFunction, requireApiKey, traceIdOf, verifiedKeyOf, type HttpHandler } from '../http/middleware.js';
import { byRouteKey } from '../http/not-found.js';
import { routeKeyOf, ROUTES } from '../routes.js';
import {
  createWatch,
  MAX_BODY_BYTES,
  parseWatchId,
  readDeliveries,
  readWatch,
  readWatches,
  removeWatch,
  type WatchDependencies,
} from './resource.js';

/**
 * The watch routes (src/routes.ts, docs/api.md "Watches"), one function: each route's handler is a
 * middy chain with its scope; POST parses its body with @middy/http-json-body-parser, after a size
 * check, and a body that is not JSON is INVALID_PARAMETER in the envelope.
 */
type Event = APIGatewayProxyEventV2;

/** The verified key's client (requireApiKey ran first). */
const clientOf = (event: Event): string => clientIdOf(verifiedKeyOf(event));

export function createWatchHandlers(deps: WatchDependencies): Record<string, HttpHandler> {
  const create = httpFunction()
    .use(requireApiKey(ROUTES.createWatch.scope))
    .use(jsonBody(MAX_BODY_BYTES))
    .use(httpJsonBodyParser())
    .handler(async (event, context) => {
      if (!verifiedKeyOf(event).scopes.includes(ROUTES.listEmptyLegs.scope)) {
        throw new AppError('PERMISSION_DENIED', `This API key lacks the scope '${ROUTES.listEmptyLegs.scope}' that a watch also requires`);
      }
      const watch = await createWatch(clientOf(event), event.body, deps);
      return respond(201, { code: 'OK', message: 'success', data: watch, traceId: traceIdOf({ context }) });
    });
  const list = httpFunction()
    .use(requireApiKey(ROUTES.listWatches.scope))
    .handler(async (event, context) => successResponse({ records: await readWatches(clientOf(event), deps) }, traceIdOf({ context })));
  const get = httpFunction()
    .use(requireApiKey(ROUTES.getWatch.scope))
    .handler(async (event, context) =>
      successResponse(await readWatch(clientOf(event), parseWatchId(event.pathParameters?.id), deps), traceIdOf({ context })),
    );
  const remove = httpFunction()
    .use(requireApiKey(ROUTES.deleteWatch.scope))
    .handler(async (event, context) => {
      await removeWatch(clientOf(event), parseWatchId(event.pathParameters?.id), deps);
      return successResponse(null, traceIdOf({ context }));
    });
  const deliveries = httpFunction()
    .use(requireApiKey(ROUTES.listWatchDeliveries.scope))
    .handler(async (event, context) =>
      successResponse({ records: await readDeliveries(clientOf(event), parseWatchId(event.pathParameters?.id), deps) }, traceIdOf({ context })),
    );
  return {
    [routeKeyOf(ROUTES.createWatch)]: create,
    [routeKeyOf(ROUTES.listWatches)]: list,
    [routeKeyOf(ROUTES.getWatch)]: get,
    [routeKeyOf(ROUTES.deleteWatch)]: remove,
    [routeKeyOf(ROUTES.listWatchDeliveries)]: deliveries,
  };
}

/** The watches function: the handler of the event's route (API Gateway's routeKey). */
export function createWatchesHandler(deps: WatchDependencies): HttpHandler {
  return byRouteKey(createWatchHandlers(deps));
}
