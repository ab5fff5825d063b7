import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { Stage } from '../src/config.js';
import { createKey } from '../src/keys/store.js';
import { environmentForStage } from '../src/keys/format.js';
import { utcDate } from '../src/legs/dates.js';
import { demoLegs } from './demo/index.js';
import { parseImportText } from '../src/legs/import/index.js';
import type { StoredLeg } from '../src/legs/storage.js';
import { ConfigError } from '../src/errors.js';
import { writeLegs } from '../src/legs/loader.js';
import { assertPortFree, ensureTables, startDynamoDbLocal } from './dynamodb-local.js';
import { createEdgeServer } from './edges.js';
import { ROUTES } from '../src/http/routes.js';
import { serveDocs } from './docs-page.js';
import { createGateway } from './gateway.js';
import { FUNCTION_TIMEOUT_SECONDS } from '../src/time-budget.js';

/**
 * The whole service on one machine: DynamoDB Local (in memory, shared DB), the tables, the demo
 * data (or a file), a fresh API key for the stage, and an HTTP server that runs the real authorizer
 * and the real functions the way API Gateway chains them (routes from src/http/routes.ts). The
 * server also serves the reference page at `/docs` (local/docs-page.ts), which the deployed
 * API does not have.
 */
export const LIST_PATH = ROUTES.listEmptyLegs.path;
export const LIST_SCOPE = ROUTES.listEmptyLegs.scope;

export interface LocalServiceOptions {
  port: number;
  dynamodbPort: number;
  stage: Stage;
  legsTableName: string;
  keysTableName: string;
  /** An import-format file to load instead of the demo data. */
  dataFile?: string | undefined;
  /** Progress lines for the operator. */
  say: (line: string) => void;
}

export interface LocalService {
  url: string;
  dynamodbEndpoint: string;
  /** Process id of DynamoDB Local (java). */
  dynamodbPid: number;
  apiKey: string;
  stop(): Promise<void>;
}

export class LocalServiceError extends Error {
  override name = 'LocalServiceError';
}

/** The legs to load: the file's (all valid, or an error listing what is wrong) or the demo's. */
export async function legsToLoad(dataFile: string | undefined, today: string): Promise<StoredLeg[]> {
  if (!dataFile) return demoLegs(today);
  let text: string;
  try {
    text = await readFile(dataFile, 'utf8');
  } catch (err) {
    throw new ConfigError('--data', `cannot read ${dataFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const parsed = parseImportText(text, { today });
  if (parsed.errors.length > 0) {
    const shown = parsed.errors.slice(0, 20).map((e) => `  ${e.message}`);
    const more = parsed.errors.length > 20 ? [`  ... and ${parsed.errors.length - 20} more`] : [];
    throw new LocalServiceError(
      [`--data ${dataFile} has ${parsed.errors.length} error(s); nothing was loaded:`, ...shown, ...more].join('\n'),
    );
  }
  return parsed.legs;
}

export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  await assertPortFree(options.port, 'API');
  const legs = await legsToLoad(options.dataFile, utcDate(new Date()));
  const ddb = await startDynamoDbLocal({ port: options.dynamodbPort });
  let server: Server | undefined;
  try {
    options.say(`DynamoDB Local (in memory) on ${ddb.endpoint} (pid ${ddb.pid})`);
    // The functions read their settings from the environment, as in Lambda.
    process.env.DYNAMODB_ENDPOINT = ddb.endpoint;
    process.env.STAGE = options.stage;
    process.env.LEGS_TABLE_NAME = options.legsTableName;
    process.env.KEYS_TABLE_NAME = options.keysTableName;
    await ensureTables(ddb.client, options);

    await writeLegs(ddb.client, options.legsTableName, legs);
    options.say(`Loaded ${legs.length} legs${options.dataFile ? ` from ${options.dataFile}` : ' (demo data, dates relative to today)'}`);

    const created = await createKey(ddb.client, options.keysTableName, {
      environment: environmentForStage(options.stage),
      scopes: [LIST_SCOPE],
      name: 'local npm start',
    });

    const list = (await import('../functions/list-empty-legs/handler.js')).handler;
    const authorizer = (await import('../functions/authorizer/handler.js')).handler;
    const notFound = (await import('../functions/not-found/handler.js')).handler;
    const openApi = (await import('../functions/openapi/handler.js')).handler;
    const gateway = createGateway({
      routes: [
        {
          method: ROUTES.listEmptyLegs.method,
          path: ROUTES.listEmptyLegs.path,
          handler: list,
          authorizer,
          timeoutMs: FUNCTION_TIMEOUT_SECONDS.listEmptyLegs * 1000,
          authorizerTimeoutMs: FUNCTION_TIMEOUT_SECONDS.authorizer * 1000,
        },
        {
          method: ROUTES.openApiDocument.method,
          path: ROUTES.openApiDocument.path,
          handler: openApi,
          timeoutMs: FUNCTION_TIMEOUT_SECONDS.openApi * 1000,
        },
      ],
      defaultRoute: notFound,
      defaultRouteTimeoutMs: FUNCTION_TIMEOUT_SECONDS.notFound * 1000,
    });
    server = createEdgeServer((req, res) => {
      if (!serveDocs(req, res)) void gateway(req, res);
    });
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', (err: NodeJS.ErrnoException) =>
        reject(new LocalServiceError(err.code === 'EADDRINUSE' ? `Port ${options.port} (API) is already in use` : err.message)),
      );
      listening.listen(options.port, () => resolve());
    });
    return {
      url: `http://localhost:${options.port}`,
      dynamodbEndpoint: ddb.endpoint,
      dynamodbPid: ddb.pid,
      apiKey: created.key,
      async stop() {
        await new Promise<void>((resolve) => {
          listening.close(() => resolve());
          listening.closeAllConnections();
        });
        await ddb.stop();
      },
    };
  } catch (err) {
    server?.close();
    await ddb.stop();
    throw err;
  }
}
