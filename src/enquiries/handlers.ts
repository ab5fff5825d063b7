import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { BASE_HEADERS, respond, successResponse } from '../http/envelope.js';
import { jsonBody } from '../http/json-body.js';
import { httpFunction, requireApiKey, traceIdOf, verifiedKeyOf, type HttpHandler } from '../http/middleware.js';
import { byRouteKey } from '../http/not-found.js';
import { clientIdOf } from '../keys/index.js';
import { parseLegId } from '../leg-by-id/index.js';
import { routeKeyOf, ROUTES } from '../routes.js';
import { MAX_BODY_BYTES } from './domain/body.js';
import { parseIdempotencyKey } from './idempotency/key.js';
import { postEnquiry } from './use-cases/create.js';
import { answerEnquiry, listOwnEnquiries, parseEnquiryId, parseListQuery, readEnquiry, withdrawEnquiry } from './use-cases/manage.js';
import type { Caller, EnquiryDependencies } from './use-cases/ports.js';

/**
 * The enquiry routes (src/routes.ts, docs/api.md "Enquiries"), one function: a broker's POST (with
 * its Idempotency-Key), list, read and withdrawal, a seller's list and answer. A replayed POST is the
 * first answer, status and body, with `Idempotent-Replayed: true`.
 */
type Event = APIGatewayProxyEventV2;

/** The verified key's client and scopes (requireApiKey ran first). */
function callerOf(event: Event): Caller {
  const key = verifiedKeyOf(event);
  return { clientId: clientIdOf(key), scopes: key.scopes };
}

function replayedResponse(statusCode: number, body: string, traceId: string): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { ...BASE_HEADERS, 'x-trace-id': traceId, 'idempotent-replayed': 'true' }, body };
}

export function createEnquiryHandlers(deps: EnquiryDependencies): Record<string, HttpHandler> {
  const create = httpFunction()
    .use(requireApiKey(ROUTES.postEnquiry.scope))
    .use(jsonBody(MAX_BODY_BYTES))
    .use(httpJsonBodyParser())
    .handler(async (event, context) => {
      const traceId = traceIdOf({ context });
      const legId = parseLegId(event.pathParameters?.id);
      const key = parseIdempotencyKey(event.headers);
      const posted = await postEnquiry({ clientId: callerOf(event).clientId, legId, key, body: event.body, traceId }, deps);
      if (posted.replayed) return replayedResponse(posted.statusCode, posted.body, traceId);
      return { statusCode: posted.statusCode, headers: { ...BASE_HEADERS, 'x-trace-id': traceId }, body: posted.body };
    });
  const list = httpFunction()
    .use(requireApiKey(ROUTES.listEnquiries.scope))
    .handler(async (event, context) => successResponse(await listOwnEnquiries(callerOf(event), parseListQuery(event.queryStringParameters), deps), traceIdOf({ context })));
  const get = httpFunction()
    .use(requireApiKey(ROUTES.getEnquiry.scope))
    .handler(async (event, context) => successResponse(await readEnquiry(callerOf(event), parseEnquiryId(event.pathParameters?.id), deps), traceIdOf({ context })));
  const withdraw = httpFunction()
    .use(requireApiKey(ROUTES.withdrawEnquiry.scope))
    .handler(async (event, context) => successResponse(await withdrawEnquiry(callerOf(event), parseEnquiryId(event.pathParameters?.id), deps), traceIdOf({ context })));
  const answer = httpFunction()
    .use(requireApiKey(ROUTES.answerEnquiry.scope))
    .use(jsonBody(MAX_BODY_BYTES))
    .use(httpJsonBodyParser())
    .handler(async (event, context) =>
      respond(200, { code: 'OK', message: 'success', data: await answerEnquiry(callerOf(event), parseEnquiryId(event.pathParameters?.id), event.body, deps), traceId: traceIdOf({ context }) }),
    );
  return {
    [routeKeyOf(ROUTES.postEnquiry)]: create,
    [routeKeyOf(ROUTES.listEnquiries)]: list,
    [routeKeyOf(ROUTES.getEnquiry)]: get,
    [routeKeyOf(ROUTES.withdrawEnquiry)]: withdraw,
    [routeKeyOf(ROUTES.answerEnquiry)]: answer,
  };
}

/** The enquiries function: the handler of the event's route (API Gateway's routeKey). */
export function createEnquiriesHandler(deps: EnquiryDependencies): HttpHandler {
  return byRouteKey(createEnquiryHandlers(deps));
}
