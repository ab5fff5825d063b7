import { Annotations, CfnOutput, Duration, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import { acknowledge } from './nag.js';
import type { Construct } from 'constructs';
import { STACK_OUTPUTS, stackName } from '../src/deployment.js';
import { KEYS_TABLE, LEGS_TABLE } from '../src/tables.js';
import { FUNCTION_TIMEOUT_SECONDS } from '../src/time-budget.js';
import { DataTables } from './constructs/data-tables.js';
import { FeedIngestion, INGEST_FUNCTION_LOGICAL_ID } from './constructs/feed-ingestion.js';
import { EmptyLegsHttpApi } from './constructs/http-api.js';
import { Operations } from './constructs/operations.js';
import { ENV, ServiceFunction } from './constructs/service-function.js';
import type { StageConfig } from './stage-config.js';

export interface EmptyLegsStackProps extends StackProps {
  readonly config: StageConfig;
  /** `cdk synth -c samLocal=true`: a template for `sam local` only (see ServiceFunctionProps). */
  readonly samLocal?: boolean;
}

/** Stable logical ids of the functions (sam local, events/env.json, docs/deploy.md). */
export const FUNCTION_LOGICAL_IDS = {
  listEmptyLegs: 'ListEmptyLegsFunction',
  authorizer: 'AuthorizerFunction',
  notFound: 'NotFoundFunction',
  openApi: 'OpenApiFunction',
  ingestFeed: INGEST_FUNCTION_LOGICAL_ID,
} as const;

/**
 * One stage of the service. Environment-agnostic (no account or region, no lookups), so it
 * synthesizes offline and deploys to whatever account and region the CLI's credentials name.
 */
export class EmptyLegsStack extends Stack {
  readonly tables: DataTables;
  readonly listFunction: ServiceFunction;
  readonly authorizerFunction: ServiceFunction;
  readonly notFoundFunction: ServiceFunction;
  readonly openApiFunction: ServiceFunction;
  readonly httpApi: EmptyLegsHttpApi;
  readonly operations: Operations;
  readonly feeds: FeedIngestion;

  constructor(scope: Construct, id: string, props: EmptyLegsStackProps) {
    super(scope, id, {
      description: `Empty-leg listing API, stage ${props.config.stage} (accepts ${props.config.allowedKeyEnvironment} keys only)`,
      ...props,
      stackName: stackName(props.config.stage),
    });
    const config = props.config;
    Tags.of(this).add('service', 'empty-legs');
    Tags.of(this).add('stage', config.stage);
    if (props.samLocal) {
      Annotations.of(this).addWarningV2(
        'empty-legs:samLocal',
        'Synthesized with -c samLocal=true for sam local: the functions declare an empty DYNAMODB_ENDPOINT (for --env-vars) and the authorizer an empty IdentitySource list (for start-api). Do not deploy this template; cdk deploy synthesizes again without it.',
      );
    }

    this.tables = new DataTables(this, 'Data', {
      removalPolicy: config.removalPolicy,
      deletionProtection: config.deletionProtection,
    });

    const common = {
      stage: config.stage,
      logLevel: config.logLevel,
      logRetention: config.logRetention,
      removalPolicy: config.removalPolicy,
      samLocal: props.samLocal ?? false,
    };

    this.listFunction = new ServiceFunction(this, 'ListEmptyLegs', {
      ...common,
      name: 'listEmptyLegs',
      logicalId: FUNCTION_LOGICAL_IDS.listEmptyLegs,
      description: 'GET /open/v1/empty-legs: lists empty legs',
      memorySize: 1024,
      timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS.listEmptyLegs),
      environment: { [ENV.listingCacheTtlSeconds]: String(config.listingCacheTtlSeconds) },
    }).readLegs(this.tables.legs);

    this.authorizerFunction = new ServiceFunction(this, 'Authorizer', {
      ...common,
      name: 'authorizer',
      logicalId: FUNCTION_LOGICAL_IDS.authorizer,
      description: 'HTTP API Lambda authorizer: resolves X-API-Key into a verdict',
      memorySize: 512,
      timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS.authorizer),
    }).readKeys(this.tables.keys);

    this.notFoundFunction = new ServiceFunction(this, 'NotFound', {
      ...common,
      name: 'notFound',
      logicalId: FUNCTION_LOGICAL_IDS.notFound,
      description: '$default route: answers NOT_FOUND in the envelope',
      memorySize: 256,
      timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS.notFound),
    });

    this.openApiFunction = new ServiceFunction(this, 'OpenApi', {
      ...common,
      name: 'openApi',
      logicalId: FUNCTION_LOGICAL_IDS.openApi,
      description: 'GET /open/v1/openapi.json: the OpenAPI document, no key',
      memorySize: 256,
      timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS.openApi),
    });

    this.httpApi = new EmptyLegsHttpApi(this, 'Http', {
      apiName: stackName(config.stage),
      listFunction: this.listFunction.function,
      authorizerFunction: this.authorizerFunction.function,
      notFoundFunction: this.notFoundFunction.function,
      openApiFunction: this.openApiFunction.function,
      throttling: config.throttling,
      logRetention: config.logRetention,
      removalPolicy: config.removalPolicy,
      samLocal: props.samLocal ?? false,
    });

    this.operations = new Operations(this, 'Operations', {
      alarmNamePrefix: stackName(config.stage),
      thresholds: config.alarms,
      api: this.httpApi.api,
      removalPolicy: config.removalPolicy,
      functions: [
        { name: 'ListFunction', function: this.listFunction.function, errorThreshold: config.alarms.functionErrors },
        {
          name: 'AuthorizerFunction',
          function: this.authorizerFunction.function,
          errorThreshold: config.alarms.authorizerErrors,
          errorsAlarmName: 'AuthorizerErrors',
        },
        {
          name: 'NotFoundFunction',
          function: this.notFoundFunction.function,
          errorThreshold: config.alarms.functionErrors,
        },
        {
          name: 'OpenApiFunction',
          function: this.openApiFunction.function,
          errorThreshold: config.alarms.functionErrors,
        },
      ],
      tables: [
        { name: 'LegsTable', table: this.tables.legs, definition: LEGS_TABLE },
        { name: 'KeysTable', table: this.tables.keys, definition: KEYS_TABLE },
      ],
    });

    this.feeds = new FeedIngestion(this, 'Feeds', {
      ...common,
      legsTable: this.tables.legs,
      alarmTopic: this.operations.topic,
      alarmNamePrefix: stackName(config.stage),
      settings: config.feeds,
    });
    new CfnOutput(this, 'FeedsBucketName', {
      value: this.feeds.bucketName,
      description: 'Feeds bucket: put files under incoming/ (upsert) or incoming/sync/ (sync); reports under reports/',
    });

    new CfnOutput(this, STACK_OUTPUTS.apiUrl, {
      value: this.httpApi.url,
      description: 'Base URL of the API',
    });
    new CfnOutput(this, STACK_OUTPUTS.legsTableName, {
      value: this.tables.legs.tableName,
      description: 'Legs table (npm run legs:load -- FILE --aws --stage STAGE)',
    });
    new CfnOutput(this, STACK_OUTPUTS.keysTableName, {
      value: this.tables.keys.tableName,
      description: 'Keys table (npm run keys -- ... --aws --stage STAGE)',
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.operations.topic.topicArn,
      description: 'SNS topic of the alarms: subscribe the on-call address to it',
    });

    this.suppressNagFindings();
  }

  /** cdk-nag AwsSolutions findings that are accepted, each with its reason. */
  private suppressNagFindings(): void {
    for (const fn of [this.listFunction, this.authorizerFunction, this.notFoundFunction, this.openApiFunction, this.feeds.ingest]) {
      acknowledge(fn.function, {
        id: 'AwsSolutions-L1',
        reason:
          'The runtime is pinned to nodejs22.x (lib/bundling.ts RUNTIME, the runtime the service is built and tested for); moving to a newer runtime is a deliberate upgrade, not drift.',
      });
    }
    acknowledge(this.httpApi.defaultRoute, {
      id: 'AwsSolutions-APIG4',
      reason:
        'The $default route serves no data: it only answers NOT_FOUND in the envelope for unknown paths and methods, so it needs no API key.',
    });
    acknowledge(this.httpApi.openApiRoute, {
      id: 'AwsSolutions-APIG4',
      reason:
        'GET /open/v1/openapi.json serves the public API contract (the OpenAPI document), no data: integrators read it before they have a key, so it needs none.',
    });
  }
}
