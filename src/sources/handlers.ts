import { withDeadline } from '../aws/deadline.js';
import { processClock, type Clock } from '../clock.js';
import { listResponse } from '../http/envelope.js';
import { httpFunction, requireApiKey, traceIdOf, type HttpHandler } from '../http/middleware.js';
import { ROUTES } from '../routes.js';
import { invocationDeadlineMs } from '../time-budget.js';
import type { RegistrySource } from './cached.js';
import { listSources } from './list-sources.js';

export interface SourcesHandlerDependencies {
  registry: RegistrySource;
  countListed: (now: number) => Promise<ReadonlyMap<string, number>>;
  clock?: Clock;
}

/** GET /open/v1/sources (src/routes.ts): the sources, with an ETag (304 on a match) like the listing. */
export function createSourcesHandler({ registry, countListed, clock = processClock }: SourcesHandlerDependencies): HttpHandler {
  return httpFunction({ gzip: true, conditional: true })
    .use(requireApiKey(ROUTES.listSources.scope))
    .handler(async (_event, context) => {
      const data = await withDeadline(invocationDeadlineMs('listSources', context), () => listSources({ registry, countListed, now: clock() }));
      return listResponse(data, traceIdOf({ context }));
    });
}
