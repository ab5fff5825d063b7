import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { AirportIndex } from '../airports/index.js';
import { successResponse } from '../http/envelope.js';
import { jsonBody } from '../http/json-body.js';
import { httpFunction, requireApiKey, traceIdOf, verifiedKeyOf, type HttpHandler } from '../http/middleware.js';
import { byRouteKey } from '../http/not-found.js';
import { clientIdOf } from '../keys/index.js';
import { routeKeyOf, ROUTES } from '../routes.js';
import { MAX_BODY_BYTES, parseWatchId, type WatchDependencies } from '../watches/index.js';
import { rotateWatchSecret } from './rotate-secret.js';
import { parseDeliveryId, replayDelivery, sendTestEvent, type SendDependencies } from './send-now.js';
import { changeWatch } from './update-watch.js';

/**
 * The owner's operations on a watch (src/routes.ts, docs/api.md "Watches"), one function: change
 * it, send a test event, send a delivery again, rotate its signing secret. Each route is a middy
 * chain with its scope (`watch:write`); another client's watch is NOT_FOUND.
 */
export type WatchAdminDependencies = SendDependencies & { airports: () => AirportIndex } & Pick<WatchDependencies, 'rates'>;

type Event = APIGatewayProxyEventV2;

/** The verified key's client (requireApiKey ran first). */
const clientOf = (event: Event): string => clientIdOf(verifiedKeyOf(event));

const watchIdOf = (event: Event) => parseWatchId(event.pathParameters?.id);

export function createWatchAdminHandlers(deps: WatchAdminDependencies): Record<string, HttpHandler> {
  const update = httpFunction()
    .use(requireApiKey(ROUTES.updateWatch.scope))
    .use(jsonBody(MAX_BODY_BYTES))
    .use(httpJsonBodyParser())
    .handler(async (event, context) => successResponse(await changeWatch(clientOf(event), watchIdOf(event), event.body, deps), traceIdOf({ context })));
  const test = httpFunction()
    .use(requireApiKey(ROUTES.testWatch.scope))
    .handler(async (event, context) => successResponse(await sendTestEvent(clientOf(event), watchIdOf(event), deps), traceIdOf({ context })));
  const retry = httpFunction()
    .use(requireApiKey(ROUTES.retryWatchDelivery.scope))
    .handler(async (event, context) => {
      const watchId = watchIdOf(event);
      const deliveryId = parseDeliveryId(event.pathParameters?.deliveryId);
      return successResponse(await replayDelivery(clientOf(event), watchId, deliveryId, deps), traceIdOf({ context }));
    });
  const rotate = httpFunction()
    .use(requireApiKey(ROUTES.rotateWatchSecret.scope))
    .handler(async (event, context) => successResponse(await rotateWatchSecret(clientOf(event), watchIdOf(event), deps), traceIdOf({ context })));
  return {
    [routeKeyOf(ROUTES.updateWatch)]: update,
    [routeKeyOf(ROUTES.testWatch)]: test,
    [routeKeyOf(ROUTES.retryWatchDelivery)]: retry,
    [routeKeyOf(ROUTES.rotateWatchSecret)]: rotate,
  };
}

/** The watch-admin function: the handler of the event's route (API Gateway's routeKey). */
export function createWatchAdminHandler(deps: WatchAdminDependencies): HttpHandler {
  return byRouteKey(createWatchAdminHandlers(deps));
}
