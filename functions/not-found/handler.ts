import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AppError } from '../../src/errors.js';
import { httpEnvelope } from '../../src/http/middleware.js';

/** The `$default` route: any path or method the API does not have answers NOT_FOUND in the envelope. */
export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(httpEnvelope())
  .handler((event) => {
    throw new AppError('NOT_FOUND', `No route for ${event.requestContext.http.method} ${event.rawPath}`);
  });
