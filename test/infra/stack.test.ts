import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { Duration, Token, Validations } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from '../../lib/nag.js';
import { FUNCTION_LOGICAL_IDS } from '../../lib/empty-legs-stack.js';
import { ACCESS_LOG_FIELDS } from '../../lib/constructs/http-api.js';
import { HTTP_METHODS, loadOpenApi } from '../support/contract.js';
import { BUNDLE_FILE, ESM_REQUIRE_BANNER, PROJECT_ROOT, bundledFiles, entryPath, esbuildOptions } from '../../lib/bundling.js';
import { STAGE_CONFIGS } from '../../lib/stage-config.js';
import { STACK_OUTPUTS, stackName } from '../../src/deployment.js';
import { STAGES, type Stage } from '../../src/config.js';
import { KEYS_TABLE, LEGS_TABLE, WATCH_DELIVERIES_TABLE, WATCHES_TABLE, type TableDefinition } from '../../src/tables.js';
import { DEFAULT_RATE_LIMIT } from '../../src/keys/limits/rate-limit.js';
import { DEFAULT_CLIENT_RATE_LIMIT } from '../../src/keys/limits/client-limit.js';
import { RATE_LIMIT_METRICS } from '../../src/metrics.js';
import { DATABASE_DEADLINE_MS } from '../../src/time-budget.js';
import { DEFAULT_ROUTE, ROUTES, routeKeyOf } from '../../src/routes.js';
import { CONCURRENCY_FUNCTION_NAMES, FUNCTION_NAMES, FUNCTIONS, type FunctionName, type FunctionSpec } from '../../src/function-table.js';
import {
  allStrings,
  arnOf,
  normalizeStatement,
  onlyResource,
  props,
  ref,
  resourcesOfType,
  sortStatements,
  synthesize,
  type CfnResource,
  type NormalizedStatement,
  type Synthesized,
} from './helpers.js';

/**
 * The stack of both stages, synthesized once (with esbuild bundling and cdk-nag) for every test of
 * this file. Expectations come from src/tables.ts, lib/stage-config.ts and the spec, never from the
 * template itself.
 */
let synth: Synthesized;

beforeAll(() => {
  // Asset metadata as the CLI writes it (and as sam local reads it): where each bundle is.
  synth = synthesize({ 'aws:cdk:enable-asset-metadata': true });
}, 180_000);

afterAll(() => {
  // Template.fromStack synthesizes into a temporary directory of its own.
  if (synth) rmSync(synth.app.outdir, { recursive: true, force: true });
});

const LIST_ROUTE_KEY = 'GET /open/v1/empty-legs';
const OPENAPI_ROUTE_KEY = 'GET /open/v1/openapi.json';

function tableId(t: Template, def: TableDefinition): string {
  return onlyResource(t, 'AWS::DynamoDB::Table', (r) =>
    JSON.stringify(props(r).KeySchema) === JSON.stringify([{ AttributeName: def.partitionKey, KeyType: 'HASH' }]),
  )[0];
}

function fn(t: Template, logicalId: string): CfnResource {
  const found = resourcesOfType(t, 'AWS::Lambda::Function')[logicalId];
  if (!found) throw new Error(`No function ${logicalId}`);
  return found;
}

function roleIdOf(t: Template, functionId: string): string {
  const role = props(fn(t, functionId)).Role as { 'Fn::GetAtt': [string, string] };
  return role['Fn::GetAtt'][0];
}

function logGroupIdOf(t: Template, functionId: string): string {
  return ((props(fn(t, functionId)).LoggingConfig as { LogGroup: { Ref: string } }).LogGroup).Ref;
}

/** Every statement of every IAM policy attached to the role. */
function statementsOfRole(t: Template, roleId: string): NormalizedStatement[] {
  const policies = Object.values(resourcesOfType(t, 'AWS::IAM::Policy')).filter((p) =>
    (props(p).Roles as unknown[]).some((r) => JSON.stringify(r) === JSON.stringify(ref(roleId))),
  );
  return sortStatements(
    policies.flatMap((p) =>
      ((props(p).PolicyDocument as { Statement: Record<string, unknown>[] }).Statement).map(normalizeStatement),
    ),
  );
}

function envOf(t: Template, functionId: string): Record<string, unknown> {
  return ((props(fn(t, functionId)).Environment as { Variables: Record<string, unknown> }).Variables);
}

function integrationTarget(t: Template, routeKey: string): string {
  const [, route] = onlyResource(t, 'AWS::ApiGatewayV2::Route', (r) => props(r).RouteKey === routeKey);
  const target = props(route).Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
  const integrationId = target['Fn::Join'][1][1].Ref;
  const integration = resourcesOfType(t, 'AWS::ApiGatewayV2::Integration')[integrationId]!;
  expect(props(integration)).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
  return (props(integration).IntegrationUri as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
}

describe.each(STAGES)('stage %s', (stage: Stage) => {
  const config = STAGE_CONFIGS[stage];
  const t = () => synth.templates[stage];
  const stack = () => synth.stacks[stage];
  /** GetItem on the rates in force only (src/table-access.ts `legs:rates`). */
  const ratesRead = () =>
    normalizeStatement({ Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: arnOf(tableId(t(), LEGS_TABLE)), Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['~rates'] } } });

  it('is the stack EmptyLegs-<stage>, environment-agnostic (synthesizes offline)', () => {
    expect(stack().stackName).toBe(`EmptyLegs-${stage}`);
    expect(stack().stackName).toBe(stackName(stage));
    expect(Token.isUnresolved(stack().account)).toBe(true);
    expect(Token.isUnresolved(stack().region)).toBe(true);
  });

  it('accepts only the key environment of its stage', () => {
    expect(config.allowedKeyEnvironment).toBe(stage === 'prod' ? 'live' : 'test');
    expect(stack().templateOptions.description).toContain(`accepts ${config.allowedKeyEnvironment} keys only`);
  });

  describe('routes', () => {
    it('has exactly the routes of src/routes.ts and the $default route', () => {
      const keys = Object.values(resourcesOfType(t(), 'AWS::ApiGatewayV2::Route')).map((r) => props(r).RouteKey);
      expect(keys.sort()).toEqual(['$default', ...Object.values(ROUTES).map(routeKeyOf)].sort());
      expect(keys).toEqual(expect.arrayContaining([LIST_ROUTE_KEY, OPENAPI_ROUTE_KEY]));
    });

    it.each(Object.entries(ROUTES))('%s: to its function of src/routes.ts, behind the authorizer exactly when the table says so', (_name, route) => {
      const key = routeKeyOf(route);
      const [, resource] = onlyResource(t(), 'AWS::ApiGatewayV2::Route', (r) => props(r).RouteKey === key);
      expect(props(resource).AuthorizationType).toBe(route.authorizer ? 'CUSTOM' : 'NONE');
      expect(integrationTarget(t(), key)).toBe(FUNCTIONS[route.function].logicalId);
      expect(integrationTarget(t(), '$default')).toBe(FUNCTIONS[DEFAULT_ROUTE.function].logicalId);
    });

    it('has a route for every path and method of docs/openapi.yaml, behind the authorizer exactly when it needs a key', () => {
      const doc = loadOpenApi();
      const routes = Object.values(resourcesOfType(t(), 'AWS::ApiGatewayV2::Route')).map((r) => props(r));
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const method of HTTP_METHODS.filter((m) => item[m])) {
          const route = routes.find((r) => r.RouteKey === `${method.toUpperCase()} ${path}`);
          expect(route).toBeDefined();
          const needsKey = (item[method]!.security ?? doc.security ?? []).length > 0;
          expect(route!.AuthorizationType).toBe(needsKey ? 'CUSTOM' : 'NONE');
        }
      }
    });

    it('sends GET /open/v1/openapi.json to its own function, without an authorizer, and that function reads no table', () => {
      const [, route] = onlyResource(t(), 'AWS::ApiGatewayV2::Route', (r) => props(r).RouteKey === OPENAPI_ROUTE_KEY);
      expect(props(route).AuthorizationType).toBe('NONE');
      expect(props(route).AuthorizerId).toBeUndefined();
      expect(integrationTarget(t(), OPENAPI_ROUTE_KEY)).toBe(FUNCTION_LOGICAL_IDS.openApi);
      const env = (fn(t(), FUNCTION_LOGICAL_IDS.openApi).Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables;
      expect(env).not.toHaveProperty('LEGS_TABLE_NAME');
      expect(env).not.toHaveProperty('KEYS_TABLE_NAME');
      const roleId = ((fn(t(), FUNCTION_LOGICAL_IDS.openApi).Properties as { Role: { 'Fn::GetAtt': string[] } }).Role['Fn::GetAtt'])[0]!;
      const policies = Object.values(resourcesOfType(t(), 'AWS::IAM::Policy')).filter((r) =>
        JSON.stringify(props(r).Roles).includes(JSON.stringify(ref(roleId))),
      );
      expect(policies.length).toBeGreaterThan(0);
      expect(JSON.stringify(policies)).not.toContain('dynamodb:');
    });

    it('sends GET /open/v1/empty-legs to the list function behind the key authorizer', () => {
      const [authorizerId] = onlyResource(t(), 'AWS::ApiGatewayV2::Authorizer');
      t().hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: LIST_ROUTE_KEY,
        AuthorizationType: 'CUSTOM',
        AuthorizerId: ref(authorizerId),
      });
      expect(integrationTarget(t(), LIST_ROUTE_KEY)).toBe(FUNCTION_LOGICAL_IDS.listEmptyLegs);
    });

    it('sends GET /open/v1/empty-legs/{id} to the by-id function behind the key authorizer', () => {
      const [authorizerId] = onlyResource(t(), 'AWS::ApiGatewayV2::Authorizer');
      t().hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: 'GET /open/v1/empty-legs/{id}',
        AuthorizationType: 'CUSTOM',
        AuthorizerId: ref(authorizerId),
      });
      expect(integrationTarget(t(), 'GET /open/v1/empty-legs/{id}')).toBe(FUNCTION_LOGICAL_IDS.getEmptyLeg);
      expect(FUNCTION_LOGICAL_IDS.getEmptyLeg).toBe('GetEmptyLegFunction');
    });

    it('sends GET /open/v1/sources to the sources function behind the key authorizer', () => {
      const [authorizerId] = onlyResource(t(), 'AWS::ApiGatewayV2::Authorizer');
      t().hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: 'GET /open/v1/sources',
        AuthorizationType: 'CUSTOM',
        AuthorizerId: ref(authorizerId),
      });
      expect(integrationTarget(t(), 'GET /open/v1/sources')).toBe(FUNCTION_LOGICAL_IDS.listSources);
      expect(FUNCTION_LOGICAL_IDS.listSources).toBe('ListSourcesFunction');
    });

    it('sends POST, GET and DELETE /open/v1/mcp to the MCP function behind the key authorizer; it reads what the list function reads, manages watches as the watches function does and posts enquiries as the enquiries function does', () => {
      const [authorizerId] = onlyResource(t(), 'AWS::ApiGatewayV2::Authorizer');
      for (const routeKey of ['POST /open/v1/mcp', 'GET /open/v1/mcp', 'DELETE /open/v1/mcp']) {
        t().hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: routeKey, AuthorizationType: 'CUSTOM', AuthorizerId: ref(authorizerId) });
        expect(integrationTarget(t(), routeKey)).toBe(FUNCTION_LOGICAL_IDS.mcp);
      }
      const beyondLogs = (id: string) => statementsOfRole(t(), roleIdOf(t(), id)).filter((s) => !JSON.stringify(s.Action).includes('logs:'));
      const legs = JSON.stringify(arnOf(tableId(t(), LEGS_TABLE)));
      const watchesTables = beyondLogs(FUNCTION_LOGICAL_IDS.watches).filter((s) => !JSON.stringify(s.Resource).includes(legs));
      // And the enquiry POST as the enquiries function makes it (its table, its events' queue), not its reads of the legs table.
      const enquiries = beyondLogs(FUNCTION_LOGICAL_IDS.enquiries).filter((s) => !JSON.stringify(s.Resource).includes(legs));
      expect(beyondLogs(FUNCTION_LOGICAL_IDS.mcp)).toEqual(sortStatements([...beyondLogs(FUNCTION_LOGICAL_IDS.listEmptyLegs), ...watchesTables, ...enquiries]));
      expect(envOf(t(), FUNCTION_LOGICAL_IDS.mcp)).toMatchObject({ LEGS_TABLE_NAME: ref(tableId(t(), LEGS_TABLE)), LISTING_CACHE_TTL_SECONDS: expect.any(String) });
    });

    it('sends $default to the not-found function without an authorizer', () => {
      const [, route] = onlyResource(t(), 'AWS::ApiGatewayV2::Route', (r) => props(r).RouteKey === '$default');
      expect(props(route).AuthorizationType).toBe('NONE');
      expect(props(route).AuthorizerId).toBeUndefined();
      expect(integrationTarget(t(), '$default')).toBe(FUNCTION_LOGICAL_IDS.notFound);
    });
  });

  describe('authorizer', () => {
    it('is a REQUEST Lambda authorizer with simple responses, payload 2.0, no identity source and no cache', () => {
      const [, authorizer] = onlyResource(t(), 'AWS::ApiGatewayV2::Authorizer');
      const p = props(authorizer);
      expect(p).toMatchObject({
        AuthorizerType: 'REQUEST',
        EnableSimpleResponses: true,
        AuthorizerPayloadFormatVersion: '2.0',
        AuthorizerResultTtlInSeconds: 0,
      });
      expect(p).not.toHaveProperty('IdentitySource');
      expect(JSON.stringify(p.AuthorizerUri)).toContain(JSON.stringify(arnOf(FUNCTION_LOGICAL_IDS.authorizer)));
    });

    it('lets API Gateway invoke the authorizer function for this API only', () => {
      const [apiId] = onlyResource(t(), 'AWS::ApiGatewayV2::Api');
      const [authorizerId] = onlyResource(t(), 'AWS::ApiGatewayV2::Authorizer');
      const permission = Object.values(resourcesOfType(t(), 'AWS::Lambda::Permission')).find(
        (r) => JSON.stringify(props(r).FunctionName) === JSON.stringify(arnOf(FUNCTION_LOGICAL_IDS.authorizer)),
      )!;
      expect(props(permission)).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
      const source = JSON.stringify(props(permission).SourceArn);
      expect(source).toContain(JSON.stringify(ref(apiId)));
      expect(source).toContain(`/authorizers/`);
      expect(source).toContain(JSON.stringify(ref(authorizerId)));
    });
  });

  describe('tables', () => {
    it.each([
      ['legs', LEGS_TABLE],
      ['keys', KEYS_TABLE],
    ] as const)('the %s table has the keys, indexes and projections of src/tables.ts', (_name, def) => {
      const id = tableId(t(), def);
      const p = props(resourcesOfType(t(), 'AWS::DynamoDB::Table')[id]!);
      const keySchema = (pk: string, sk?: string) => [
        { AttributeName: pk, KeyType: 'HASH' },
        ...(sk ? [{ AttributeName: sk, KeyType: 'RANGE' }] : []),
      ];
      expect(p.KeySchema).toEqual(keySchema(def.partitionKey, 'sortKey' in def ? (def.sortKey as string) : undefined));
      const gsis = p.GlobalSecondaryIndexes as Record<string, unknown>[];
      expect(gsis.map((g) => g.IndexName)).toEqual(def.indexes.map((ix) => ix.indexName));
      for (const ix of def.indexes) {
        const gsi = gsis.find((g) => g.IndexName === ix.indexName)!;
        expect(gsi.KeySchema).toEqual(keySchema(ix.partitionKey, 'sortKey' in ix ? ix.sortKey : undefined));
        const nonKey = 'nonKeyAttributes' in ix ? ix.nonKeyAttributes : undefined;
        const keysOnly = 'keysOnly' in ix && ix.keysOnly;
        expect(gsi.Projection).toEqual(
          keysOnly ? { ProjectionType: 'KEYS_ONLY' } : nonKey ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...nonKey] } : { ProjectionType: 'ALL' },
        );
      }
      const ttl = 'timeToLiveAttribute' in def ? def.timeToLiveAttribute : undefined;
      if (ttl) expect(p.TimeToLiveSpecification).toEqual({ AttributeName: ttl, Enabled: true });
      else expect(p.TimeToLiveSpecification).toBeUndefined();
    });

    it('the listing index is byDepartureBucket on (lb, ls) projecting lf, the retirement index byExpiry on (xp, xd) keys only, the full sync\'s listedLegs on ls projecting all; legs and keys expire by ttl', () => {
      // The spec-level facts, stated independently of src/tables.ts.
      const legs = props(resourcesOfType(t(), 'AWS::DynamoDB::Table')[tableId(t(), LEGS_TABLE)]!);
      expect(legs.GlobalSecondaryIndexes).toEqual([
        {
          IndexName: 'byDepartureBucket',
          KeySchema: [
            { AttributeName: 'lb', KeyType: 'HASH' },
            { AttributeName: 'ls', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['lf'] },
        },
        {
          IndexName: 'byExpiry',
          KeySchema: [
            { AttributeName: 'xp', KeyType: 'HASH' },
            { AttributeName: 'xd', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
        {
          IndexName: 'listedLegs',
          KeySchema: [{ AttributeName: 'ls', KeyType: 'HASH' }],
          Projection: { ProjectionType: 'ALL' },
        },
        {
          IndexName: 'byExpiryInstant',
          KeySchema: [
            { AttributeName: 'xp', KeyType: 'HASH' },
            { AttributeName: 'xa', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ]);
      // Every key attribute of the table and its indexes is a string.
      expect((legs.AttributeDefinitions as { AttributeName: string; AttributeType: string }[]).slice().sort((x, y) => x.AttributeName.localeCompare(y.AttributeName))).toEqual(
        ['id', 'lb', 'ls', 'xa', 'xd', 'xp'].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
      );
      expect(legs.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
      const keys = props(resourcesOfType(t(), 'AWS::DynamoDB::Table')[tableId(t(), KEYS_TABLE)]!);
      expect(keys.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    });

    it('both tables: on-demand, point-in-time recovery, encrypted with the AWS-managed key', () => {
      const tables = Object.values(resourcesOfType(t(), 'AWS::DynamoDB::Table'));
      // Legs, keys, watches, deliveries, enquiries.
      expect(tables).toHaveLength(5);
      for (const table of tables) {
        expect(props(table)).toMatchObject({
          BillingMode: 'PAY_PER_REQUEST',
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          SSESpecification: { SSEEnabled: true },
        });
        // SSEEnabled without a customer key = the AWS-managed key aws/dynamodb.
        expect(props(table).SSESpecification).not.toHaveProperty('KMSMasterKeyId');
      }
    });

    it(`${stage === 'prod' ? 'are retained and deletion-protected' : 'are destroyed with the stack, no deletion protection'}`, () => {
      const expected = stage === 'prod' ? 'Retain' : 'Delete';
      for (const table of Object.values(resourcesOfType(t(), 'AWS::DynamoDB::Table'))) {
        expect(table.DeletionPolicy).toBe(expected);
        expect(table.UpdateReplacePolicy).toBe(expected);
        expect(props(table).DeletionProtectionEnabled).toBe(stage === 'prod');
      }
    });
  });

  describe('functions', () => {
    it.each(Object.values(FUNCTION_LOGICAL_IDS))('%s: nodejs22.x on arm64, ESM bundle handler', (id) => {
      expect(props(fn(t(), id))).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
    });

    it('are exactly the functions of src/function-table.ts, with its memory, description and the timeouts the local gateway enforces', () => {
      expect(Object.keys(resourcesOfType(t(), 'AWS::Lambda::Function')).sort()).toEqual(
        FUNCTION_NAMES.map((name) => FUNCTIONS[name].logicalId).sort(),
      );
      for (const name of FUNCTION_NAMES) {
        const p = props(fn(t(), FUNCTIONS[name].logicalId));
        expect(p.Timeout).toBe(FUNCTIONS[name].timeoutSeconds);
        expect(p.MemorySize).toBe(FUNCTIONS[name].memorySize);
        expect(p.Description).toBe(FUNCTIONS[name].description);
      }
    });

    it('have timeouts above their database deadlines (src/time-budget.ts)', () => {
      expect(DATABASE_DEADLINE_MS.authorizer).toBeLessThan(FUNCTIONS.authorizer.timeoutSeconds * 1000);
      expect(DATABASE_DEADLINE_MS.listEmptyLegs).toBeLessThan(FUNCTIONS.listEmptyLegs.timeoutSeconds * 1000);
    });

    it('have the settings the functions read, and never DYNAMODB_ENDPOINT', () => {
      const legsId = tableId(t(), LEGS_TABLE);
      const keysId = tableId(t(), KEYS_TABLE);
      const common = {
        STAGE: stage,
        POWERTOOLS_LOG_LEVEL: config.logLevel,
        POWERTOOLS_SERVICE_NAME: 'empty-legs',
        NODE_OPTIONS: '--enable-source-maps',
      };
      expect(envOf(t(), FUNCTION_LOGICAL_IDS.listEmptyLegs)).toEqual({
        ...common,
        LEGS_TABLE_NAME: ref(legsId),
        LISTING_CACHE_TTL_SECONDS: String(config.listingCacheTtlSeconds),
      });
      expect(envOf(t(), FUNCTION_LOGICAL_IDS.authorizer)).toEqual({
        ...common,
        KEYS_TABLE_NAME: ref(keysId),
        FAILED_AUTH_PER_MINUTE: String(config.failedAuth.perMinute),
        FAILED_AUTH_BURST: String(config.failedAuth.burst),
        // CloudFront's origin secret, resolved at deploy time (test/infra/edge.test.ts).
        ORIGIN_SECRET: expect.objectContaining({ 'Fn::Join': expect.any(Array) }),
      });
      expect(envOf(t(), FUNCTION_LOGICAL_IDS.notFound)).toEqual(common);
      // The change feed's cursor key, resolved at deploy time from the stack's secret; no other function has it.
      const [cursorKeyId] = onlyResource(t(), 'AWS::SecretsManager::Secret', (_r, id) => id.startsWith('ChangeCursorKey'));
      expect(JSON.stringify(envOf(t(), FUNCTIONS.listChanges.logicalId).CHANGE_CURSOR_KEY)).toContain(cursorKeyId);
      for (const [id, f] of Object.entries(resourcesOfType(t(), 'AWS::Lambda::Function'))) {
        if (id !== FUNCTIONS.listChanges.logicalId) expect(JSON.stringify(props(f))).not.toContain('CHANGE_CURSOR_KEY');
      }
      for (const f of Object.values(resourcesOfType(t(), 'AWS::Lambda::Function'))) {
        expect(JSON.stringify(props(f))).not.toContain('DYNAMODB_ENDPOINT');
      }
    });
  });

  describe('IAM', () => {
    const logs = (logGroupId: string): NormalizedStatement =>
      normalizeStatement({
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: arnOf(logGroupId),
      });

    /** `legs:read`: Query on the listing index, GetItem and BatchGetItem on the table, and the function's logs. */
    const listingReads = (id: string): NormalizedStatement[] => {
      const legsId = tableId(t(), LEGS_TABLE);
      return sortStatements([
        logs(logGroupIdOf(t(), id)),
        normalizeStatement({
          Effect: 'Allow',
          Action: 'dynamodb:Query',
          Resource: { 'Fn::Join': ['', [arnOf(legsId), '/index/byDepartureBucket']] },
        }),
        normalizeStatement({
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
          Resource: arnOf(legsId),
        }),
      ]);
    };

    it('the list function may only Query the listing index and GetItem/BatchGetItem items (legs, snapshot, change log)', () => {
      const id = FUNCTION_LOGICAL_IDS.listEmptyLegs;
      expect(statementsOfRole(t(), roleIdOf(t(), id))).toEqual(listingReads(id));
    });

    it('the sources function may read what the list function reads, and nothing more (the registry is a GetItem)', () => {
      const id = FUNCTION_LOGICAL_IDS.listSources;
      expect(statementsOfRole(t(), roleIdOf(t(), id))).toEqual(listingReads(id));
    });

    it('the retiring function may only Query the byExpiry index and UpdateItem legs (no Scan, no delete)', () => {
      const legsId = tableId(t(), LEGS_TABLE);
      const id = FUNCTION_LOGICAL_IDS.retireLegs;
      expect(statementsOfRole(t(), roleIdOf(t(), id))).toEqual(
        sortStatements([
          logs(logGroupIdOf(t(), id)),
          normalizeStatement({
            Effect: 'Allow',
            Action: 'dynamodb:Query',
            Resource: { 'Fn::Join': ['', [arnOf(legsId), '/index/byExpiry']] },
          }),
          normalizeStatement({
            Effect: 'Allow',
            Action: 'dynamodb:UpdateItem',
            Resource: arnOf(legsId),
          }),
        ]),
      );
    });

    it('the sweep may Query byExpiryInstant and read the listing, GetItem only the registry and its state, PutItem only its state, and UpdateItem only the touch of a leg', () => {
      const legsId = tableId(t(), LEGS_TABLE);
      const id = FUNCTION_LOGICAL_IDS.sweepListing;
      expect(statementsOfRole(t(), roleIdOf(t(), id))).toEqual(
        sortStatements([
          ...listingReads(id),
          normalizeStatement({
            Effect: 'Allow',
            Action: 'dynamodb:Query',
            Resource: [{ 'Fn::Join': ['', [arnOf(legsId), '/index/byExpiryInstant']] }, { 'Fn::Join': ['', [arnOf(legsId), '/index/byDepartureBucket']] }],
          }),
          normalizeStatement({
            Effect: 'Allow',
            Action: 'dynamodb:GetItem',
            Resource: arnOf(legsId),
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['~sources', '~sweep'] } },
          }),
          normalizeStatement({
            Effect: 'Allow',
            Action: 'dynamodb:PutItem',
            Resource: arnOf(legsId),
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['~sweep'] } },
          }),
          normalizeStatement({
            Effect: 'Allow',
            Action: 'dynamodb:UpdateItem',
            Resource: arnOf(legsId),
            Condition: { 'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['id', 'xs', 'xa', 'lb'] } },
          }),
        ]).filter((s, i, all) => all.findIndex((o) => JSON.stringify(o) === JSON.stringify(s)) === i),
      );
    });

    it.each([
      ['retiring function', FUNCTION_LOGICAL_IDS.retireLegs, 'rate(1 hour)'],
      ['snapshot build', FUNCTION_LOGICAL_IDS.buildSnapshot, 'rate(1 minute)'],
      ['sweep', FUNCTION_LOGICAL_IDS.sweepListing, 'rate(1 minute)'],
    ])('the %s runs from an EventBridge rule at %s, which alone may invoke it', (_what, id, rate) => {
      const targetsOf = (r: CfnResource) => (props(r).Targets as { Arn: unknown }[]).map((x) => JSON.stringify(x.Arn));
      const [ruleId, rule] = onlyResource(t(), 'AWS::Events::Rule', (r) => targetsOf(r).includes(JSON.stringify(arnOf(id))));
      expect(props(rule).ScheduleExpression).toBe(rate);
      expect(props(rule).State).toBe('ENABLED');
      expect(targetsOf(rule)).toEqual([JSON.stringify(arnOf(id))]);
      const permissions = Object.values(resourcesOfType(t(), 'AWS::Lambda::Permission')).filter(
        (p) => JSON.stringify(props(p).FunctionName) === JSON.stringify(arnOf(id)),
      );
      expect(permissions.map((p) => [props(p).Principal, props(p).SourceArn])).toEqual([['events.amazonaws.com', arnOf(ruleId)]]);
      expect(envOf(t(), id)).toMatchObject({ LEGS_TABLE_NAME: ref(tableId(t(), LEGS_TABLE)) });
    });

    it('the four scheduled functions have a rule each, and there are no other rules', () => {
      expect(Object.keys(resourcesOfType(t(), 'AWS::Events::Rule'))).toHaveLength(4);
    });

    it("the rates fetch runs on working days after the ECB's publication, from the ECB's address unless the context names another", () => {
      const id = FUNCTION_LOGICAL_IDS.fetchRates;
      const targetsOf = (r: CfnResource) => (props(r).Targets as { Arn: unknown }[]).map((x) => JSON.stringify(x.Arn));
      const [, rule] = onlyResource(t(), 'AWS::Events::Rule', (r) => targetsOf(r).includes(JSON.stringify(arnOf(id))));
      // 15:30 and 16:30 UTC, Monday to Friday: after about 16:00 CET (15:00 UTC, 14:00 in summer).
      expect(props(rule).ScheduleExpression).toBe('cron(30 15,16 ? * MON-FRI *)');
      expect(envOf(t(), id)).toMatchObject({ LEGS_TABLE_NAME: ref(tableId(t(), LEGS_TABLE)), RATES_URL: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml' });
      if (stage !== 'sandbox') return;
      const other = synthesize({ ratesUrl: 'https://rates.example.com/daily.xml', 'aws:cdk:bundling-stacks': [] });
      try {
        const template = other.templates.sandbox;
        expect(envOf(template, id)).toMatchObject({ RATES_URL: 'https://rates.example.com/daily.xml' });
      } finally {
        rmSync(other.app.outdir, { recursive: true, force: true });
      }
    });

    it('the rates fetch may only GetItem and PutItem the rates item', () => {
      const legsId = tableId(t(), LEGS_TABLE);
      const id = FUNCTION_LOGICAL_IDS.fetchRates;
      expect(statementsOfRole(t(), roleIdOf(t(), id))).toEqual(
        sortStatements([
          logs(logGroupIdOf(t(), id)),
          normalizeStatement({
            Effect: 'Allow',
            Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
            Resource: arnOf(legsId),
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['~rates'] } },
          }),
        ]),
      );
    });

    it('an alarm, sent to the alarm topic, goes off once the rates in force are older than 4 days', () => {
      const [, alarm] = onlyResource(t(), 'AWS::CloudWatch::Alarm', (r) => props(r).MetricName === 'RatesAgeDays');
      expect(props(alarm)).toMatchObject({
        Namespace: 'EmptyLegs/Rates',
        Statistic: 'Maximum',
        Threshold: 4,
        ComparisonOperator: 'GreaterThanThreshold',
        Dimensions: [{ Name: 'Stage', Value: stage }],
      });
      expect((props(alarm).AlarmActions as unknown[]).length).toBe(1);
    });

    it('the snapshot build may only Query the listing index, GetItem the change log head and entries and the manifest, and PutItem/BatchWriteItem ~snapshot items', () => {
      const legsId = tableId(t(), LEGS_TABLE);
      const id = FUNCTION_LOGICAL_IDS.buildSnapshot;
      const statements = statementsOfRole(t(), roleIdOf(t(), id));
      expect(statements).toEqual(
        sortStatements([
          logs(logGroupIdOf(t(), id)),
          normalizeStatement({
            Effect: 'Allow',
            Action: 'dynamodb:Query',
            Resource: { 'Fn::Join': ['', [arnOf(legsId), '/index/byDepartureBucket']] },
          }),
          normalizeStatement({
            Effect: 'Allow',
            Action: 'dynamodb:GetItem',
            Resource: arnOf(legsId),
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['~changes', '~change#*', '~snapshot'] } },
          }),
          normalizeStatement({
            Effect: 'Allow',
            Action: ['dynamodb:PutItem', 'dynamodb:BatchWriteItem'],
            Resource: arnOf(legsId),
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['~snapshot*'] } },
          }),
        ]),
      );
      // Stated apart: nothing that scans, deletes one by one, updates, or reads legs in bulk.
      const actions = statements.flatMap((x) => x.Action);
      for (const never of ['dynamodb:Scan', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem', 'dynamodb:TransactWriteItems']) {
        expect(actions).not.toContain(never);
      }
      // Every table action but the index Query is limited to items by their key.
      for (const x of statements.filter((y) => y.Action.some((a) => a.startsWith('dynamodb:')) && !y.Action.includes('dynamodb:Query'))) {
        expect(JSON.stringify(x.Condition)).toContain('dynamodb:LeadingKeys');
      }
    });

    it('the by-id function may read what the list function reads (group=flight reads the route), and nothing more', () => {
      const legsId = tableId(t(), LEGS_TABLE);
      const id = FUNCTION_LOGICAL_IDS.getEmptyLeg;
      expect(statementsOfRole(t(), roleIdOf(t(), id))).toEqual(listingReads(id));
      const env = (fn(t(), id).Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables;
      expect(env.LEGS_TABLE_NAME).toEqual(ref(legsId));
      expect(env).not.toHaveProperty('KEYS_TABLE_NAME');
    });

    it('the authorizer may only GetItem on the keys table, and UpdateItem on its usage counters (usage# items) only', () => {
      const keysId = tableId(t(), KEYS_TABLE);
      const id = FUNCTION_LOGICAL_IDS.authorizer;
      expect(statementsOfRole(t(), roleIdOf(t(), id))).toEqual(
        sortStatements([
          logs(logGroupIdOf(t(), id)),
          normalizeStatement({ Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: arnOf(keysId) }),
          normalizeStatement({
            Effect: 'Allow',
            Action: 'dynamodb:UpdateItem',
            Resource: arnOf(keysId),
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['usage#*'] } },
          }),
        ]),
      );
    });

    it("the watch-admin function may only GetItem/UpdateItem watches, GetItem/UpdateItem deliveries, Query the byDeliveryId index and GetItem the rates item (no Scan, Put or Delete)", () => {
      const idOf = (def: TableDefinition) =>
        onlyResource(t(), 'AWS::DynamoDB::Table', (r) => JSON.stringify(props(r).KeySchema) === JSON.stringify([{ AttributeName: def.partitionKey, KeyType: 'HASH' }, { AttributeName: def.sortKey, KeyType: 'RANGE' }]))[0];
      const id = FUNCTION_LOGICAL_IDS.watchAdmin;
      expect(statementsOfRole(t(), roleIdOf(t(), id))).toEqual(
        sortStatements([
          logs(logGroupIdOf(t(), id)),
          normalizeStatement({ Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], Resource: arnOf(idOf(WATCHES_TABLE)) }),
          normalizeStatement({ Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], Resource: arnOf(idOf(WATCH_DELIVERIES_TABLE)) }),
          normalizeStatement({ Effect: 'Allow', Action: 'dynamodb:Query', Resource: { 'Fn::Join': ['', [arnOf(idOf(WATCH_DELIVERIES_TABLE)), '/index/byDeliveryId']] } }),
          ratesRead(),
        ]),
      );
      expect(envOf(t(), id)).toMatchObject({ WATCHES_TABLE_NAME: ref(idOf(WATCHES_TABLE)), WATCH_DELIVERIES_TABLE_NAME: ref(idOf(WATCH_DELIVERIES_TABLE)), LEGS_TABLE_NAME: ref(tableId(t(), LEGS_TABLE)) });
    });

    it('the watches and watch-admin functions and the matcher may read the rates in force (a currency checked, prices converted): GetItem on the rates item only', () => {
      for (const id of [FUNCTION_LOGICAL_IDS.watches, FUNCTION_LOGICAL_IDS.watchAdmin, FUNCTION_LOGICAL_IDS.matchWatches]) {
        const onLegs = statementsOfRole(t(), roleIdOf(t(), id)).filter((s) => JSON.stringify(s.Resource).includes(JSON.stringify(arnOf(tableId(t(), LEGS_TABLE)))));
        const registryRead = normalizeStatement({ Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: arnOf(tableId(t(), LEGS_TABLE)), Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['~sources'] } } });
        // The matcher also reads the sources registry (`kind`, `verifiedOnly`), by its key only, and the legs of a flight watch's flights (`legs:read`).
        const legsRead = [
          normalizeStatement({ Effect: 'Allow', Action: ['dynamodb:BatchGetItem', 'dynamodb:GetItem'], Resource: arnOf(tableId(t(), LEGS_TABLE)) }),
          normalizeStatement({ Effect: 'Allow', Action: 'dynamodb:Query', Resource: { 'Fn::Join': ['', [arnOf(tableId(t(), LEGS_TABLE)), '/index/byDepartureBucket']] } }),
        ];
        expect(sortStatements(onLegs)).toEqual(sortStatements(id === FUNCTION_LOGICAL_IDS.matchWatches ? [...legsRead, ratesRead(), registryRead] : [ratesRead()]));
        expect(envOf(t(), id)).toMatchObject({ LEGS_TABLE_NAME: ref(tableId(t(), LEGS_TABLE)) });
      }
    });

    it('the api-keys function reads keys by hash and both indexes, and writes only key, client and history items (never usage#)', () => {
      const keysId = tableId(t(), KEYS_TABLE);
      const id = FUNCTION_LOGICAL_IDS.apiKeys;
      const statements = statementsOfRole(t(), roleIdOf(t(), id));
      const text = JSON.stringify(statements);
      expect(text).not.toMatch(/Scan|DeleteItem|BatchWrite|"dynamodb:\*"/);
      expect(statements).toContainEqual(normalizeStatement({ Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: arnOf(keysId) }));
      expect(statements).toContainEqual(
        normalizeStatement({
          Effect: 'Allow',
          Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'],
          Resource: arnOf(keysId),
          Condition: { 'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': ['usage#*'] } },
        }),
      );
      for (const index of KEYS_TABLE.indexes) expect(text).toContain(`/index/${index.indexName}`);
      const env = (fn(t(), id).Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables;
      expect(env.KEYS_TABLE_NAME).toEqual(ref(keysId));
    });

    it('the not-found function may only write its own logs', () => {
      const id = FUNCTION_LOGICAL_IDS.notFound;
      expect(statementsOfRole(t(), roleIdOf(t(), id))).toEqual([logs(logGroupIdOf(t(), id))]);
    });

    it('roles have no managed policies and no inline policies; no IAM policy has a wildcard', () => {
      const roles = resourcesOfType(t(), 'AWS::IAM::Role');
      expect(Object.keys(roles).sort()).toEqual(
        Object.values(FUNCTION_LOGICAL_IDS)
          .map((id) => roleIdOf(t(), id))
          .sort(),
      );
      for (const role of Object.values(roles)) {
        expect(props(role).ManagedPolicyArns).toBeUndefined();
        expect(props(role).Policies).toBeUndefined();
        expect(props(role).AssumeRolePolicyDocument).toMatchObject({
          Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }],
        });
      }
      expect(resourcesOfType(t(), 'AWS::IAM::ManagedPolicy')).toEqual({});
      for (const policy of Object.values(resourcesOfType(t(), 'AWS::IAM::Policy'))) {
        const statements = (props(policy).PolicyDocument as { Statement: Record<string, unknown>[] }).Statement;
        for (const s of statements) {
          expect(s.Effect).toBe('Allow');
          expect(allStrings(s.Action).filter((a) => a.includes('*'))).toEqual([]);
          // Only the ingest function's two prefix grants in the feeds bucket, and dynamodb:ListStreams
          // (no resource-level permission) for the stream consumer (both acknowledged in cdk-nag).
          const listStreamsOnly = allStrings(s.Action).join() === 'dynamodb:ListStreams';
          expect(allStrings(s.Resource).filter((r) => r.includes('*') && r !== '/incoming/*' && r !== '/reports/*' && !listStreamsOnly)).toEqual([]);
          expect(s).not.toHaveProperty('NotAction');
          expect(s).not.toHaveProperty('NotResource');
        }
      }
    });
  });

  describe('logs', () => {
    it('every log group keeps its logs for the stage retention and follows the stage removal policy', () => {
      const groups = resourcesOfType(t(), 'AWS::Logs::LogGroup');
      // 21 function log groups (list, by-id, sources, changes, authorizer, not-found, openapi, watches, watch-admin, mcp, enquiries, api-keys, ingest, retire, snapshot, rates, sweep, consumer, matcher, deliver-webhooks, deliver-slow-webhooks) + the API access log group.
      expect(Object.keys(groups)).toHaveLength(22);
      const days = stage === 'prod' ? RetentionDays.THREE_MONTHS : RetentionDays.ONE_WEEK;
      expect(config.logRetention).toBe(days);
      for (const g of Object.values(groups)) {
        expect(props(g).RetentionInDays).toBe(days);
        expect(g.DeletionPolicy).toBe(stage === 'prod' ? 'Retain' : 'Delete');
      }
      for (const id of Object.values(FUNCTION_LOGICAL_IDS)) expect(groups[logGroupIdOf(t(), id)]).toBeDefined();
    });

    it('the API stage writes JSON access logs with the fields operations need', () => {
      const [, stageResource] = onlyResource(t(), 'AWS::ApiGatewayV2::Stage');
      const settings = props(stageResource).AccessLogSettings as { DestinationArn: unknown; Format: string };
      const [accessLogId] = onlyResource(
        t(),
        'AWS::Logs::LogGroup',
        (_r, id) => !Object.values(FUNCTION_LOGICAL_IDS).some((f) => logGroupIdOf(t(), f) === id),
      );
      expect(settings.DestinationArn).toEqual(arnOf(accessLogId));
      const format = JSON.parse(settings.Format) as Record<string, string>;
      expect(format).toMatchObject({
        requestId: '$context.requestId',
        ip: '$context.identity.sourceIp',
        routeKey: '$context.routeKey',
        status: '$context.status',
        responseLatency: '$context.responseLatency',
        integrationError: '$context.integrationErrorMessage',
        authorizerError: '$context.authorizer.error',
      });
      expect(format).toEqual(ACCESS_LOG_FIELDS);
      expect(allStrings(format).join(' ')).not.toMatch(/x-api-key|header/i);
      // Nothing a caller writes freely (a key may be put there): no path, query or user agent.
      expect(allStrings(format).join(' ')).not.toMatch(/\$context\.path|\$request\.|querystring|userAgent/i);
    });
  });

  describe('API stage', () => {
    it('is the auto-deployed $default stage, throttled as the stage config says', () => {
      const [, s] = onlyResource(t(), 'AWS::ApiGatewayV2::Stage');
      expect(props(s)).toMatchObject({
        StageName: '$default',
        AutoDeploy: true,
        DefaultRouteSettings: {
          ThrottlingRateLimit: config.throttling.rateLimit,
          ThrottlingBurstLimit: config.throttling.burstLimit,
        },
      });
      expect(config.throttling.burstLimit).toBeGreaterThanOrEqual(config.throttling.rateLimit);
      // Stated per stage (docs/api.md, "Answers from API Gateway itself"): the account's guard, all keys together.
      expect(props(s).DefaultRouteSettings).toMatchObject(
        { sandbox: { ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 }, prod: { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 } }[stage],
      );
      // Above any one key's default limit (10/s, burst 20): the stage throttle is not a key's limit.
      expect(config.throttling.rateLimit).toBeGreaterThan(DEFAULT_RATE_LIMIT.rate);
      // Above what several clients at their default limit reach together (sandbox 10, prod 50): no few clients fill it.
      expect(config.throttling.rateLimit).toBeGreaterThanOrEqual({ sandbox: 10, prod: 50 }[stage] * DEFAULT_CLIENT_RATE_LIMIT.rate);
      expect(config.throttling.burstLimit).toBeGreaterThanOrEqual({ sandbox: 10, prod: 50 }[stage] * DEFAULT_CLIENT_RATE_LIMIT.burst);
    });
  });

  describe('concurrency (docs/deploy.md, "Concurrency")', () => {
    const reservedOf = (name: FunctionName) => props(fn(t(), FUNCTIONS[name].logicalId)).ReservedConcurrentExecutions;

    it('reserves the authorizer and the listing functions a share, and caps the watch administration and the deliveries', () => {
      expect(CONCURRENCY_FUNCTION_NAMES.filter((n) => (FUNCTIONS[n] as FunctionSpec).concurrency === 'reserved').sort()).toEqual(['authorizer', 'getEmptyLeg', 'listChanges', 'listEmptyLegs', 'listSources']);
      expect(CONCURRENCY_FUNCTION_NAMES.filter((n) => (FUNCTIONS[n] as FunctionSpec).concurrency === 'capped').sort()).toEqual(['deliverSlowWebhooks', 'deliverWebhooks', 'enquiries', 'mcp', 'watchAdmin']);
      for (const name of CONCURRENCY_FUNCTION_NAMES) expect([name, reservedOf(name)]).toEqual([name, config.reservedConcurrency[name]]);
      // The shares hold the stage throttle's rate at 100 ms an invocation (authorizer and list function each).
      expect(config.reservedConcurrency.authorizer).toBeGreaterThanOrEqual(config.throttling.rateLimit / 10);
      expect(config.reservedConcurrency.listEmptyLegs).toBeGreaterThanOrEqual(config.throttling.rateLimit / 10);
      // Sends and deliveries together stay under the listing's share.
      expect(config.reservedConcurrency.watchAdmin + config.reservedConcurrency.deliverWebhooks + config.reservedConcurrency.deliverSlowWebhooks).toBeLessThan(config.reservedConcurrency.listEmptyLegs);
      // What is reserved, the feeds' ingestion included, leaves Lambda's 100 unreserved of an account's default 1,000.
      const reserved = Object.values(resourcesOfType(t(), 'AWS::Lambda::Function')).reduce((sum, f) => sum + Number(props(f).ReservedConcurrentExecutions ?? 0), 0);
      expect(reserved).toBeLessThanOrEqual(900);
      // Every other function shares the rest (none reserved by accident).
      const others = FUNCTION_NAMES.filter((n) => !(CONCURRENCY_FUNCTION_NAMES as readonly string[]).includes(n) && n !== 'ingestFeed');
      for (const name of others) expect([name, reservedOf(name)]).toEqual([name, undefined]);
    });

    it("bounds the delivery queue's event source by maximumConcurrency, within the delivery function's cap", () => {
      const [, mapping] = onlyResource(t(), 'AWS::Lambda::EventSourceMapping', (r) => JSON.stringify(props(r).FunctionName).includes(FUNCTIONS.deliverWebhooks.logicalId));
      expect(props(mapping).ScalingConfig).toEqual({ MaximumConcurrency: config.deliveryMaximumConcurrency });
      expect(config.deliveryMaximumConcurrency).toBeGreaterThanOrEqual(2);
      expect(config.deliveryMaximumConcurrency).toBeLessThanOrEqual(config.reservedConcurrency.deliverWebhooks);
    });

    it('gives the slow lane its own queue, dead letters and capped function: the shared function forwards to it (docs/watches.md, "The slow lane")', () => {
      const queues = resourcesOfType(t(), 'AWS::SQS::Queue');
      const [slowQueueId, slowQueue] = Object.entries(queues).find(([id]) => id.startsWith('WebhooksSlowQueue'))!;
      const [slowDeadId] = Object.entries(queues).find(([id]) => id.startsWith('WebhooksSlowDeadLetters'))!;
      const [sharedQueueId] = Object.entries(queues).find(([id]) => id.startsWith('WebhooksQueue'))!;
      expect(props(slowQueue).RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [slowDeadId, 'Arn'] }, maxReceiveCount: 5 });
      const slowFn = props(fn(t(), FUNCTIONS.deliverSlowWebhooks.logicalId));
      expect(slowFn.ReservedConcurrentExecutions).toBe(config.reservedConcurrency.deliverSlowWebhooks);
      expect(config.reservedConcurrency.deliverSlowWebhooks).toBeLessThan(config.reservedConcurrency.deliverWebhooks);
      expect((slowFn.Environment as { Variables: Record<string, unknown> }).Variables.WEBHOOK_SLOW_QUEUE_URL).toEqual({ Ref: slowQueueId });
      const [, mapping] = onlyResource(t(), 'AWS::Lambda::EventSourceMapping', (r) => JSON.stringify(props(r).FunctionName).includes(FUNCTIONS.deliverSlowWebhooks.logicalId));
      expect(props(mapping).EventSourceArn).toEqual({ 'Fn::GetAtt': [slowQueueId, 'Arn'] });
      expect(props(mapping).ScalingConfig).toEqual({ MaximumConcurrency: config.reservedConcurrency.deliverSlowWebhooks });
      expect(props(mapping).FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      // The shared lane's function knows the slow queue and may send to it; the slow lane's never reads the shared queue.
      const sharedFn = props(fn(t(), FUNCTIONS.deliverWebhooks.logicalId));
      expect((sharedFn.Environment as { Variables: Record<string, unknown> }).Variables.WEBHOOK_SLOW_QUEUE_URL).toEqual({ Ref: slowQueueId });
      const policies = Object.values(resourcesOfType(t(), 'AWS::IAM::Policy')).map((p) => JSON.stringify(props(p)));
      // A policy's roles are named for the construct (Webhooks/DeliverWebhooks, Webhooks/DeliverSlowWebhooks).
      const sendsTo = (queueId: string, constructId: string) =>
        policies.some((p) => p.includes(`"Fn::GetAtt":["${queueId}","Arn"]`) && p.includes('sqs:SendMessage') && p.includes(`Webhooks${constructId}`));
      expect(sendsTo(slowQueueId, 'DeliverWebhooks')).toBe(true);
      expect(sendsTo(slowQueueId, 'DeliverSlowWebhooks')).toBe(true);
      expect(sendsTo(sharedQueueId, 'DeliverSlowWebhooks')).toBe(false);
      const sharedMappings = Object.values(resourcesOfType(t(), 'AWS::Lambda::EventSourceMapping')).filter((r) => JSON.stringify(props(r).EventSourceArn).includes(sharedQueueId));
      expect(sharedMappings.map((r) => JSON.stringify(props(r).FunctionName))).toEqual([expect.stringContaining(FUNCTIONS.deliverWebhooks.logicalId)]);
    });
  });

  describe('alarms', () => {
    const alarmsByName = () =>
      Object.fromEntries(
        Object.values(resourcesOfType(t(), 'AWS::CloudWatch::Alarm')).map((a) => [String(props(a).AlarmName), props(a)]),
      );
    const name = (suffix: string) => `${stackName(stage)}-${suffix}`;
    const a = config.alarms;
    const periodSeconds = a.period.toSeconds();

    it('RetireBehind: six hourly runs of the retirement in a row left due legs (its EMF metric, for the stage)', () => {
      expect(alarmsByName()[name('RetireBehind')]).toMatchObject({
        Namespace: 'EmptyLegs/History',
        MetricName: 'RetireBehind',
        Dimensions: [{ Name: 'Stage', Value: stage }],
        Statistic: 'Minimum',
        Period: 3600,
        EvaluationPeriods: 6,
        DatapointsToAlarm: 6,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    });

    it('SourcesStale: a registered source is stale in a run of the sweep (its EMF metric StaleSources, for the stage)', () => {
      expect(alarmsByName()[name('SourcesStale')]).toMatchObject({
        Namespace: 'EmptyLegs/Sweep',
        MetricName: 'StaleSources',
        Dimensions: [{ Name: 'Stage', Value: stage }],
        Statistic: 'Maximum',
        Period: 300,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    });

    it("UsageWriteFailures: the authorizer's failed counter writes (its EMF metric, for the stage)", () => {
      const alarm = alarmsByName()[name('UsageWriteFailures')]!;
      expect(alarm).toMatchObject({
        Namespace: RATE_LIMIT_METRICS.namespace,
        MetricName: RATE_LIMIT_METRICS.writeFailures,
        Dimensions: [{ Name: RATE_LIMIT_METRICS.dimension, Value: stage }],
        Statistic: 'Sum',
        Threshold: a.usageWriteFailures,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    });

    it('exist for API 5xx, each function (errors, throttles), the authorizer and both tables', () => {
      expect(Object.keys(alarmsByName()).sort()).toEqual(
        [
          'Api5xxRate',
          'ListFunctionErrors',
          'ListFunctionThrottles',
          'GetLegFunctionErrors',
          'GetLegFunctionThrottles',
          'SourcesFunctionErrors',
          'SourcesFunctionThrottles',
          'AuthorizerErrors',
          'AuthorizerFunctionThrottles',
          'NotFoundFunctionErrors',
          'NotFoundFunctionThrottles',
          'OpenApiFunctionErrors',
          'OpenApiFunctionThrottles',
          'RetireFunctionErrors',
          'RetireFunctionThrottles',
          'RetireBehind',
          'SnapshotFunctionErrors',
          'SnapshotFunctionThrottles',
          'RatesFunctionErrors',
          'RatesFunctionThrottles',
          'RatesStale',
          'SweepFunctionErrors',
          'SweepFunctionThrottles',
          'SourcesStale',
          'ChangesFunctionErrors',
          'ChangesFunctionThrottles',
          'ConsumerFunctionErrors',
          'ConsumerFunctionThrottles',
          'ChangeConsumerFailed',
          'MatcherFunctionErrors',
          'MatcherFunctionThrottles',
          'WatchMatcherFailed',
          'LegsTableThrottles',
          'KeysTableThrottles',
          'UsageWriteFailures',
          'FeedRefused',
          'IngestFunctionErrors',
          'FeedIngestFailed',
          'McpFunctionErrors',
          'McpFunctionThrottles',
          'EnquiriesFunctionErrors',
          'EnquiriesFunctionThrottles',
          'WatchesFunctionErrors',
          'WatchesFunctionThrottles',
          'WatchAdminFunctionErrors',
          'WatchAdminFunctionThrottles',
          'ApiKeysFunctionErrors',
          'ApiKeysFunctionThrottles',
          'WatchesTableThrottles',
          'WatchDeliveriesTableThrottles',
          'DeliverWebhooksErrors',
          'WebhookDeadLetters',
          'DeliverSlowWebhooksErrors',
          'WebhookSlowDeadLetters',
          ...(config.feeds.staleAlarm ? ['NoFeedLoaded24h'] : []),
        ]
          .map(name)
          .sort(),
      );
    });

    it('notify the encrypted alarm topic, on alarm and on recovery', () => {
      const [topicId, topic] = onlyResource(t(), 'AWS::SNS::Topic');
      const [keyId, key] = onlyResource(t(), 'AWS::KMS::Key');
      expect(props(topic).KmsMasterKeyId).toEqual(arnOf(keyId));
      expect(props(key).EnableKeyRotation).toBe(true);
      const keyPolicy = JSON.stringify(props(key).KeyPolicy);
      expect(keyPolicy).toContain('cloudwatch.amazonaws.com');
      for (const [alarmName, alarm] of Object.entries(alarmsByName())) {
        expect(alarm.AlarmActions).toEqual([ref(topicId)]);
        expect(alarm.OKActions).toEqual([ref(topicId)]);
        // "no feed for 24 hours" is the one alarm that missing data breaches (test/infra/feed-ingestion.test.ts)
        if (alarmName === name('NoFeedLoaded24h')) continue;
        expect(alarm.TreatMissingData).toBe('notBreaching');
        // "retiring is behind" counts six hourly runs (below)
        if (alarmName === name('RetireBehind')) continue;
        expect(alarm.EvaluationPeriods).toBe(a.evaluationPeriods);
      }
    });

    it('API 5xx rate: 5xx / Count of this API in percent, above the stage threshold', () => {
      const [apiId] = onlyResource(t(), 'AWS::ApiGatewayV2::Api');
      const alarm = alarmsByName()[name('Api5xxRate')]!;
      expect(alarm.Threshold).toBe(a.api5xxRatePercent);
      expect(alarm.ComparisonOperator).toBe('GreaterThanThreshold');
      const metrics = alarm.Metrics as {
        Expression?: string;
        MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: unknown[] }; Period: number; Stat: string };
      }[];
      expect(metrics.find((m) => m.Expression)?.Expression).toContain('100 * errors / requests');
      const stats = metrics.filter((m) => m.MetricStat).map((m) => m.MetricStat!);
      expect(stats.map((s) => s.Metric.MetricName).sort()).toEqual(['5xx', 'Count']);
      for (const s of stats) {
        expect(s.Metric.Namespace).toBe('AWS/ApiGateway');
        expect(s.Metric.Dimensions).toEqual([{ Name: 'ApiId', Value: ref(apiId) }]);
        expect(s.Period).toBe(periodSeconds);
        expect(s.Stat).toBe('Sum');
      }
    });

    it.each([
      ['ListFunctionErrors', 'Errors', FUNCTION_LOGICAL_IDS.listEmptyLegs, () => a.functionErrors],
      ['NotFoundFunctionErrors', 'Errors', FUNCTION_LOGICAL_IDS.notFound, () => a.functionErrors],
      ['OpenApiFunctionErrors', 'Errors', FUNCTION_LOGICAL_IDS.openApi, () => a.functionErrors],
      ['AuthorizerErrors', 'Errors', FUNCTION_LOGICAL_IDS.authorizer, () => a.authorizerErrors],
      ['ListFunctionThrottles', 'Throttles', FUNCTION_LOGICAL_IDS.listEmptyLegs, () => a.functionThrottles],
      ['GetLegFunctionErrors', 'Errors', FUNCTION_LOGICAL_IDS.getEmptyLeg, () => a.functionErrors],
      ['GetLegFunctionThrottles', 'Throttles', FUNCTION_LOGICAL_IDS.getEmptyLeg, () => a.functionThrottles],
      ['AuthorizerFunctionThrottles', 'Throttles', FUNCTION_LOGICAL_IDS.authorizer, () => a.functionThrottles],
      ['NotFoundFunctionThrottles', 'Throttles', FUNCTION_LOGICAL_IDS.notFound, () => a.functionThrottles],
      ['OpenApiFunctionThrottles', 'Throttles', FUNCTION_LOGICAL_IDS.openApi, () => a.functionThrottles],
      ['RetireFunctionErrors', 'Errors', FUNCTION_LOGICAL_IDS.retireLegs, () => a.functionErrors],
      ['SnapshotFunctionErrors', 'Errors', FUNCTION_LOGICAL_IDS.buildSnapshot, () => a.functionErrors],
      ['SnapshotFunctionThrottles', 'Throttles', FUNCTION_LOGICAL_IDS.buildSnapshot, () => a.functionThrottles],
    ])('%s: Lambda %s of %s, at or above the stage threshold', (suffix, metric, functionId, threshold) => {
      const alarm = alarmsByName()[name(suffix)]!;
      expect(alarm).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: metric,
        Dimensions: [{ Name: 'FunctionName', Value: ref(functionId) }],
        Statistic: 'Sum',
        Period: periodSeconds,
        Threshold: threshold(),
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    });

    it.each([
      ['LegsTableThrottles', LEGS_TABLE],
      ['KeysTableThrottles', KEYS_TABLE],
    ] as const)('%s: read/write throttle events of the table and its indexes', (suffix, def) => {
      const alarm = alarmsByName()[name(suffix)]!;
      expect(alarm.Threshold).toBe(a.dynamoThrottles);
      const tableRef = ref(tableId(t(), def));
      const stats = (alarm.Metrics as { MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: { Name: string; Value: unknown }[] } } }[])
        .filter((m) => m.MetricStat)
        .map((m) => m.MetricStat!.Metric);
      const described = stats.map((m) => {
        expect(m.Namespace).toBe('AWS/DynamoDB');
        expect(m.Dimensions.find((d) => d.Name === 'TableName')?.Value).toEqual(tableRef);
        const index = m.Dimensions.find((d) => d.Name === 'GlobalSecondaryIndexName')?.Value;
        return `${m.MetricName}${typeof index === 'string' ? `@${index}` : index === undefined ? '' : '@?'}`;
      });
      expect(described.sort()).toEqual(
        ['ReadThrottleEvents', 'WriteThrottleEvents', ...def.indexes.map((ix) => `ReadThrottleEvents@${ix.indexName}`)].sort(),
      );
    });

    it('thresholds are stricter on prod than on sandbox', () => {
      const s = STAGE_CONFIGS.sandbox.alarms;
      const p = STAGE_CONFIGS.prod.alarms;
      expect(p.api5xxRatePercent).toBeLessThanOrEqual(s.api5xxRatePercent);
      expect(p.functionErrors).toBeLessThanOrEqual(s.functionErrors);
      expect(p.period.toSeconds()).toBeLessThanOrEqual(Duration.minutes(5).toSeconds());
    });
  });

  describe('outputs', () => {
    it('gives ApiUrl (CloudFront, test/infra/edge.test.ts), LegsTableName and KeysTableName (read by the keys and legs:load commands)', () => {
      const [distributionId] = onlyResource(t(), 'AWS::CloudFront::Distribution');
      const outputs = t().toJSON().Outputs as Record<string, { Value: unknown }>;
      expect(outputs[STACK_OUTPUTS.legsTableName]?.Value).toEqual(ref(tableId(t(), LEGS_TABLE)));
      expect(outputs[STACK_OUTPUTS.keysTableName]?.Value).toEqual(ref(tableId(t(), KEYS_TABLE)));
      const url = JSON.stringify(outputs[STACK_OUTPUTS.apiUrl]?.Value);
      expect(url).toContain('https://');
      expect(url).toContain(JSON.stringify({ 'Fn::GetAtt': [distributionId, 'DomainName'] }));
      expect(Object.keys(STACK_OUTPUTS).length).toBe(3);
      expect(Object.keys(outputs)).toEqual(expect.arrayContaining(Object.values(STACK_OUTPUTS)));
    });
  });

  describe('cdk-nag', () => {
    it('AwsSolutions reports no unacknowledged finding, and CDK no error', () => {
      const report = new AwsSolutionsChecks().validateScope(stack());
      expect(report.violations).toEqual([]);
      expect(report.success).toBe(true);
      expect(Annotations.fromStack(stack()).findError('*', Match.anyValue())).toEqual([]);
    });

    it('acknowledges only L1 (runtime pinned) on the functions, APIG4 on the $default route, S1 on the access-log bucket, SQS3 on the ingest failure queue (a dead-letter destination itself), the two prefix grants of the ingest function, and the edge (origin secret rotation, CloudFront logging, certificate, geography), with reasons', () => {
      const acknowledged = stack()
        .node.findAll()
        .flatMap((c) =>
          c.node.metadata
            .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
            .flatMap((m) => Object.entries(m.data as Record<string, string>).map(([rule, reason]) => ({ path: c.node.path, rule, reason }))),
        );
      const rules = acknowledged.map((x) => `${x.path.replace(`${stackName(stage)}/`, '')} ${x.rule.replace(/^annotation::/i, '')}`);
      expect(rules.sort()).toEqual(
        [
          'ListEmptyLegs/Function AwsSolutions-L1',
          'GetEmptyLeg/Function AwsSolutions-L1',
          'ListSources/Function AwsSolutions-L1',
          'Authorizer/Function AwsSolutions-L1',
          'NotFound/Function AwsSolutions-L1',
          'OpenApi/Function AwsSolutions-L1',
          'Scheduled/RetireLegs/Function AwsSolutions-L1',
          'Scheduled/BuildSnapshot/Function AwsSolutions-L1',
          'Scheduled/FetchRates/Function AwsSolutions-L1',
          'Scheduled/SweepListing/Function AwsSolutions-L1',
          'Watches/Function AwsSolutions-L1',
          'WatchAdmin/Function AwsSolutions-L1',
          'Mcp/Function AwsSolutions-L1',
          'Enquiries/Function AwsSolutions-L1',
          'ApiKeys/Function AwsSolutions-L1',
          'Webhooks/DeliverWebhooks/Function AwsSolutions-L1',
          'Webhooks/DeadLetters AwsSolutions-SQS3',
          'Webhooks/DeliverSlowWebhooks/Function AwsSolutions-L1',
          'Webhooks/SlowDeadLetters AwsSolutions-SQS3',
          'Feeds/Ingest/Function AwsSolutions-L1',
          'ListChanges/Function AwsSolutions-L1',
          'Changes/ConsumeChanges/Function AwsSolutions-L1',
          'Changes/ConsumeChanges/Role AwsSolutions-IAM5[Resource::*]',
          'Changes/ConsumerFailures AwsSolutions-SQS3',
          'Changes/MatchWatches/Function AwsSolutions-L1',
          'Changes/MatchWatches/Role AwsSolutions-IAM5[Resource::*]',
          'Changes/MatcherFailures AwsSolutions-SQS3',
          'Feeds/AccessLogs AwsSolutions-S1',
          'Feeds/IngestFailures AwsSolutions-SQS3',
          `Feeds/Ingest/Role AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::empty-legs-${stage}-feeds-<AWS::AccountId>-<AWS::Region>/incoming/*]`,
          `Feeds/Ingest/Role AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::empty-legs-${stage}-feeds-<AWS::AccountId>-<AWS::Region>/reports/*]`,
          'Http/DefaultRoute AwsSolutions-APIG4',
          'Http/OpenApiDocumentRoute AwsSolutions-APIG4',
          'Edge/OriginSecret AwsSolutions-SMG4',
          'ChangeCursorKey AwsSolutions-SMG4',
          'Edge/Distribution AwsSolutions-CFR1',
          'Edge/Distribution AwsSolutions-CFR3',
          'Edge/Distribution AwsSolutions-CFR4',
        ].sort(),
      );
      for (const x of acknowledged) expect(x.reason.length).toBeGreaterThan(40);
    });
  });
});

describe('bundles (cdk.out of the synthesized app)', () => {
  const names: FunctionName[] = FUNCTION_NAMES;
  const logicalIds: Record<FunctionName, string> = FUNCTION_LOGICAL_IDS;

  function assetDir(name: FunctionName): string {
    const f = fn(synth.templates.sandbox, logicalIds[name]);
    return path.join(synth.app.outdir, String(f.Metadata?.['aws:asset:path']));
  }

  it.each(names)('%s: a self-contained ESM bundle with a linked source map', (name) => {
    const dir = assetDir(name);
    const code = readFileSync(path.join(dir, BUNDLE_FILE), 'utf8');
    expect(existsSync(path.join(dir, `${BUNDLE_FILE}.map`))).toBe(true);
    expect(code.startsWith(ESM_REQUIRE_BANNER)).toBe(true);
    expect(code).toContain(`//# sourceMappingURL=${BUNDLE_FILE}.map`);
    // The AWS SDK is inside the bundle (its DynamoDB JSON protocol target), not left to the runtime.
    if (name !== 'notFound' && name !== 'openApi') expect(code).toContain('DynamoDB_20120810');
    // The contract is bundled into its function: no file is read at run time.
    if (name === 'openApi') expect(code).toContain('{"openapi":"3.1.0"');
  });

  it.each(names)('%s: carries the files src/function-table.ts names beside its bundle, and no others', (name) => {
    const dir = assetDir(name);
    const files = bundledFiles(name);
    for (const f of files) expect(readFileSync(path.join(dir, f.to)).equals(readFileSync(path.join(PROJECT_ROOT, f.from)))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual([BUNDLE_FILE, `${BUNDLE_FILE}.map`, ...new Set(files.map((f) => f.to.split('/')[0]!))].sort());
    // The list function and the ingest function read the airport reference at run time.
    if (name === 'listEmptyLegs' || name === 'ingestFeed') expect(files.map((f) => f.to)).toEqual(['data/airports.json']);
  });

  it('the plain esbuild options of lib/bundling.ts build the same bytes as the stack, importing only Node built-ins', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'empty-legs-bundle-'));
    try {
      for (const name of names) {
        const dir = path.join(out, name);
        const result = await build({ ...esbuildOptions(entryPath(name), dir), metafile: true });
        const mine = readFileSync(path.join(dir, BUNDLE_FILE));
        const stacks = readFileSync(path.join(assetDir(name), BUNDLE_FILE));
        expect(mine.equals(stacks)).toBe(true);
        const output = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith(BUNDLE_FILE))![1];
        const externals = output.imports.filter((i) => i.external).map((i) => i.path);
        expect(externals.filter((p) => !isBuiltin(p))).toEqual([]);
        expect(Object.keys(output.inputs).some((i) => i.includes('node_modules/@aws-sdk/'))).toBe(name !== 'notFound' && name !== 'openApi');
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
