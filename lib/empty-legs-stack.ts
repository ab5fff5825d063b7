import { Annotations, CfnOutput, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { CHANGE_CURSOR_KEY_ENV } from '../src/config.js';
import { acknowledge } from './nag.js';
import type { Construct } from 'constructs';
import { STACK_OUTPUTS, stackName } from '../src/deployment.js';
import { KEYS_TABLE, LEGS_TABLE, WATCH_DELIVERIES_TABLE, WATCHES_TABLE } from '../src/tables.js';
import { AUTHORIZER_FUNCTION, DEFAULT_ROUTE, ROUTE_NAMES } from '../src/routes.js';
import { constructIdOf, API_FUNCTION_NAMES, FUNCTION_NAMES, FUNCTIONS, SCHEDULED_FUNCTION_NAMES, STREAM_FUNCTION_NAMES, type FunctionName, type FunctionSetting, type FunctionSpec, type ConcurrencyFunctionName } from '../src/function-table.js';
import { DataTables } from './constructs/data-tables.js';
import { FeedIngestion } from './constructs/feed-ingestion.js';
import { ApiEdge } from './constructs/edge.js';
import { EmptyLegsHttpApi } from './constructs/http-api.js';
import { Operations } from './constructs/operations.js';
import { ScheduledFunctions } from './constructs/scheduled-functions.js';
import { WebhookDelivery } from './constructs/webhook-delivery.js';
import { ChangeStream } from './constructs/change-stream.js';
import { ENV, ServiceFunction } from './constructs/service-function.js';
import type { StageConfig } from './stage-config.js';
import { notifyTopic } from './constructs/alarms.js';

export interface EmptyLegsStackProps extends StackProps {
  readonly config: StageConfig;
  /** `cdk synth -c samLocal=true`: a template for `sam local` only (see ServiceFunctionProps). */
  readonly samLocal?: boolean;
}

/** Stable logical ids of the functions (sam local, events/env.json, docs/deploy.md), from src/routes.ts. */
export const FUNCTION_LOGICAL_IDS = Object.fromEntries(
  FUNCTION_NAMES.map((name) => [name, FUNCTIONS[name].logicalId]),
) as { readonly [N in FunctionName]: (typeof FUNCTIONS)[N]['logicalId'] };

/**
 * One stage of the service. Environment-agnostic (no account or region, no lookups), so it
 * synthesizes offline and deploys to whatever account and region the CLI's credentials name.
 */
export class EmptyLegsStack extends Stack {
  readonly tables: DataTables;
  /** One per function of src/routes.ts, by name (the ingest function is `feeds.ingest`). */
  readonly functions: Readonly<Record<FunctionName, ServiceFunction>>;
  readonly httpApi: EmptyLegsHttpApi;
  readonly edge: ApiEdge;
  /** The secret the change feed signs its cursors with (src/changes/cursor.ts). */
  readonly changeCursorKey: Secret;
  readonly operations: Operations;
  readonly feeds: FeedIngestion;
  readonly scheduled: ScheduledFunctions;
  readonly webhooks: WebhookDelivery;
  readonly changeStream: ChangeStream;

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

    // The values of the per-stage settings an API function of the table may declare.
    const stageSettings: Readonly<Partial<Record<FunctionSetting, string>>> = {
      [ENV.listingCacheTtlSeconds]: String(config.listingCacheTtlSeconds),
      [ENV.failedAuthPerMinute]: String(config.failedAuth.perMinute),
      [ENV.failedAuthBurst]: String(config.failedAuth.burst),
    };
    const tables = { legs: this.tables.legs, keys: this.tables.keys, watches: this.tables.watches, deliveries: this.tables.deliveries, enquiries: this.tables.enquiries };
    // The functions the HTTP API invokes; the feeds construct creates the ingest function below.
    const functions: Partial<Record<FunctionName, ServiceFunction>> = {};
    for (const name of API_FUNCTION_NAMES) {
      const spec: FunctionSpec = FUNCTIONS[name];
      functions[name] = new ServiceFunction(this, constructIdOf(name), {
        ...common,
        name,
        ...(spec.concurrency ? { reservedConcurrency: config.reservedConcurrency[name as ConcurrencyFunctionName] } : {}),
        environment: Object.fromEntries(spec.environment.map((setting) => [setting, stageSettings[setting] ?? ''])),
      }).grant(spec.access, tables);
    }
    const apiFunction = (name: FunctionName): ServiceFunction => {
      const fn = functions[name];
      if (!fn) throw new Error(`${name} is not a function of the HTTP API (src/routes.ts invokedBy)`);
      return fn;
    };

    this.httpApi = new EmptyLegsHttpApi(this, 'Http', {
      apiName: stackName(config.stage),
      functionOf: (name) => apiFunction(name).function,
      throttling: config.throttling,
      logRetention: config.logRetention,
      removalPolicy: config.removalPolicy,
      samLocal: props.samLocal ?? false,
    });

    // CloudFront and the stage's web ACL in front of the API; the authorizer requires CloudFront's
    // origin secret (for sam local, an empty setting that --env-vars may fill).
    this.edge = new ApiEdge(this, 'Edge', { stage: config.stage, api: this.httpApi.api });
    apiFunction(AUTHORIZER_FUNCTION).function.addEnvironment(
      ENV.originSecret,
      props.samLocal ? '' : this.edge.originSecret.secretValue.unsafeUnwrap(),
    );

    // The change feed signs its cursors with this secret (for sam local, an empty setting: a key made at start).
    this.changeCursorKey = new Secret(this, 'ChangeCursorKey', {
      description: `Signs the change feed's cursors of the stage ${config.stage} (GET /open/v1/empty-legs/changes)`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
    });
    apiFunction('listChanges').function.addEnvironment(CHANGE_CURSOR_KEY_ENV, props.samLocal ? '' : this.changeCursorKey.secretValue.unsafeUnwrap());

    // The functions of a schedule (the legs' retirement, the snapshot build): with the API's in the alarms below.
    const ratesUrl: unknown = this.node.tryGetContext('ratesUrl');
    this.scheduled = new ScheduledFunctions(this, 'Scheduled', {
      ...common,
      legsTable: this.tables.legs,
      alarmNamePrefix: stackName(config.stage),
      ...(typeof ratesUrl === 'string' && ratesUrl !== '' ? { ratesUrl } : {}),
    });
    // The legs table's stream consumers (the change log; the watches' matcher): their alarms below, their on-failure alarms their own.
    // The webhook queue and its delivery function: its alarms below, to the alarm topic.
    this.webhooks = new WebhookDelivery(this, 'Webhooks', {
      ...common,
      watchesTable: this.tables.watches,
      deliveriesTable: this.tables.deliveries,
      keysTable: this.tables.keys,
      enquiriesTable: this.tables.enquiries,
      legsTable: this.tables.legs,
      alarmNamePrefix: stackName(config.stage),
      reservedConcurrency: config.reservedConcurrency.deliverWebhooks,
      maximumConcurrency: config.deliveryMaximumConcurrency,
      slowLaneConcurrency: config.reservedConcurrency.deliverSlowWebhooks,
    });
    // An API function that queues webhooks (the enquiries' events): the shared queue's URL and the right to send.
    for (const name of API_FUNCTION_NAMES) {
      if (!(FUNCTIONS[name] as FunctionSpec).environment.includes('WEBHOOK_QUEUE_URL')) continue;
      apiFunction(name).function.addEnvironment(ENV.webhookQueueUrl, this.webhooks.queue.queueUrl);
      this.webhooks.queue.grantSendMessages(apiFunction(name).function);
    }
    this.changeStream = new ChangeStream(this, 'Changes', {
      ...common,
      legsTable: this.tables.legs,
      keysTable: this.tables.keys,
      watchesTable: this.tables.watches,
      deliveriesTable: this.tables.deliveries,
      enquiriesTable: this.tables.enquiries,
      webhookQueue: this.webhooks.queue,
      alarmNamePrefix: stackName(config.stage),
    });
    const monitoredFunction = (name: FunctionName): ServiceFunction => {
      const fn = functions[name] ?? this.scheduled.functions[name] ?? this.changeStream.functions[name];
      if (!fn) throw new Error(`${name} is neither a function of the HTTP API nor of a schedule (src/routes.ts invokedBy)`);
      return fn;
    };

    this.operations = new Operations(this, 'Operations', {
      alarmNamePrefix: stackName(config.stage),
      thresholds: config.alarms,
      stage: config.stage,
      api: this.httpApi.api,
      removalPolicy: config.removalPolicy,
      functions: [...API_FUNCTION_NAMES, ...SCHEDULED_FUNCTION_NAMES, ...STREAM_FUNCTION_NAMES].map((name) => {
        const alarm = (FUNCTIONS[name] as FunctionSpec).alarm ?? { name: constructIdOf(name) };
        const isAuthorizer = name === AUTHORIZER_FUNCTION;
        return {
          name: alarm.name,
          function: monitoredFunction(name).function,
          errorThreshold: isAuthorizer ? config.alarms.authorizerErrors : config.alarms.functionErrors,
          ...(alarm.errorsAlarmName ? { errorsAlarmName: alarm.errorsAlarmName } : {}),
        };
      }),
      tables: [
        { name: 'LegsTable', table: this.tables.legs, definition: LEGS_TABLE },
        { name: 'KeysTable', table: this.tables.keys, definition: KEYS_TABLE },
        { name: 'WatchesTable', table: this.tables.watches, definition: WATCHES_TABLE },
        { name: 'WatchDeliveriesTable', table: this.tables.deliveries, definition: WATCH_DELIVERIES_TABLE },
      ],
    });

    this.changeStream.alarmTo(this.operations.topic);
    notifyTopic(this.operations.topic, this.scheduled.ratesStaleAlarm, this.scheduled.sourcesStaleAlarm);
    this.webhooks.alarmTo(this.operations.topic);

    this.feeds = new FeedIngestion(this, 'Feeds', {
      ...common,
      legsTable: this.tables.legs,
      alarmTopic: this.operations.topic,
      alarmNamePrefix: stackName(config.stage),
      settings: config.feeds,
    });
    this.functions = {
      ...functions,
      ...this.scheduled.functions,
      ...this.changeStream.functions,
      ingestFeed: this.feeds.ingest,
      deliverWebhooks: this.webhooks.deliver,
      deliverSlowWebhooks: this.webhooks.deliverSlow,
    } as Record<FunctionName, ServiceFunction>;
    new CfnOutput(this, 'FeedsBucketName', {
      value: this.feeds.bucketName,
      description: 'Feeds bucket: put files under incoming/ (upsert) or incoming/sync/ (sync); reports under reports/',
    });
    new CfnOutput(this, 'FeedIngestFailuresQueueUrl', {
      value: this.feeds.failures.queueUrl,
      description: 'Feed files whose ingest failed every attempt: their S3 events and errors (docs/deploy.md, section 9)',
    });

    new CfnOutput(this, STACK_OUTPUTS.apiUrl, {
      value: this.edge.url,
      description: 'Base URL of the API (CloudFront, behind the stage web ACL)',
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
    for (const name of FUNCTION_NAMES) {
      acknowledge(this.functions[name].function, {
        id: 'AwsSolutions-L1',
        reason:
          'The runtime is pinned to nodejs22.x (lib/bundling.ts RUNTIME, the runtime the service is built and tested for); moving to a newer runtime is a deliberate upgrade, not drift.',
      });
    }
    acknowledge(this.httpApi.defaultRoute, { id: 'AwsSolutions-APIG4', reason: DEFAULT_ROUTE.publicReason });
    acknowledge(this.changeCursorKey, {
      id: 'AwsSolutions-SMG4',
      reason:
        'The cursor key only signs the change feed\'s cursors (the API keys protect the data); rotating it is a new value and a deploy, after which earlier cursors are refused and their clients start again (docs/api.md, "Change feed").',
    });
    acknowledge(this.edge.originSecret, {
      id: 'AwsSolutions-SMG4',
      reason:
        'The origin secret only proves that a request came through CloudFront (the API keys protect the data); rotating it is a new value and a deploy, which updates CloudFront and the authorizer together (docs/deploy.md, "The edge").',
    });
    acknowledge(
      this.edge.distribution,
      {
        id: 'AwsSolutions-CFR3',
        reason:
          "Every request CloudFront forwards is in the API's access log with the viewer's address (clientIp, from the authorizer); blocked requests are in the web ACL's metrics and sampled requests. A second log of the same requests is not kept.",
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The distribution has no custom domain, so it serves the default *.cloudfront.net certificate, whose minimum protocol CloudFront fixes; a custom domain with an ACM certificate would set TLSv1.2_2021 (docs/deploy.md, "The edge").',
      },
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Partners call the API from anywhere; access is by API key, and the web ACL limits each address.',
      },
    );
    for (const name of ROUTE_NAMES) {
      const reason = this.httpApi.publicReasons[name];
      if (reason) acknowledge(this.httpApi.routes[name], { id: 'AwsSolutions-APIG4', reason });
    }
  }
}
