import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CfnAuthorizer,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { AUTHORIZER_FUNCTION, DEFAULT_ROUTE, ROUTE_NAMES, ROUTES, type RouteName, type RouteSpec } from '../../src/routes.js';
import { constructIdOf, type FunctionName } from '../../src/function-table.js';

/**
 * One JSON object per request in the access log. `$context.authorizer.*` are the authorizer's
 * context values (src/auth/verdict.ts): the verdict, the key id (never the key) or the error code.
 * Nothing a caller writes freely is logged (the path, the user agent, headers): a key put there by
 * mistake would land in the log in clear, and API Gateway cannot redact it. `routeKey` says which
 * route answered; the functions log the path with keys redacted (src/redact.ts).
 */
export const ACCESS_LOG_FIELDS: Readonly<Record<string, string>> = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  // The client's address as the authorizer found it: behind CloudFront, the viewer's (ip is CloudFront's).
  clientIp: '$context.authorizer.clientIp',
  requestTime: '$context.requestTime',
  httpMethod: '$context.httpMethod',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  gatewayError: '$context.error.message',
  verdict: '$context.authorizer.verdict',
  keyId: '$context.authorizer.keyId',
  authErrorCode: '$context.authorizer.errorCode',
};

export interface EmptyLegsHttpApiProps {
  readonly apiName: string;
  /** The function of src/routes.ts of that name (routes, the authorizer, `$default`). */
  readonly functionOf: (name: FunctionName) => IFunction;
  readonly throttling: { readonly rateLimit: number; readonly burstLimit: number };
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /**
   * `cdk synth -c samLocal=true`: write `IdentitySource: []` instead of leaving it out, because
   * `sam local start-api` refuses an HTTP API authorizer without an IdentitySource list (an empty
   * list makes it invoke the authorizer on every request, as API Gateway does).
   */
  readonly samLocal?: boolean;
}

/**
 * The HTTP API: a route per entry of src/routes.ts (behind the key authorizer or not), `$default` to the
 * not-found function, one auto-deployed stage with throttling and access logs; the authorizer has no identity source, no cache (docs/deploy.md).
 */
export class EmptyLegsHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogGroup: LogGroup;
  /** One per route of src/routes.ts, by name. */
  readonly routes: Readonly<Record<RouteName, HttpRoute>>;
  /** Why a route without the authorizer needs no key (for cdk-nag), by route name. */
  readonly publicReasons: Readonly<Partial<Record<RouteName, string>>>;
  readonly defaultRoute: HttpRoute;
  readonly cfnAuthorizer: CfnAuthorizer;

  constructor(scope: Construct, id: string, props: EmptyLegsHttpApiProps) {
    super(scope, id);

    this.api = new HttpApi(this, 'Api', {
      apiName: props.apiName,
      description: 'Empty-leg listing (read-only JSON API)',
      createDefaultStage: false,
    });

    this.accessLogGroup = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });

    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.throttling.rateLimit, burstLimit: props.throttling.burstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogGroup),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    const authorizer = new HttpLambdaAuthorizer('KeyAuthorizer', props.functionOf(AUTHORIZER_FUNCTION), {
      authorizerName: 'api-key',
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: [],
      resultsCacheTtl: Duration.seconds(0),
    });

    const routes = {} as Record<RouteName, HttpRoute>;
    const publicReasons: Partial<Record<RouteName, string>> = {};
    for (const name of ROUTE_NAMES) {
      const route: RouteSpec = ROUTES[name];
      const id = constructIdOf(name);
      routes[name] = new HttpRoute(this, `${id}Route`, {
        httpApi: this.api,
        routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`${id}Integration`, props.functionOf(route.function)),
        ...(route.authorizer ? { authorizer } : {}),
      });
      if (!route.authorizer) publicReasons[name] = route.publicReason;
    }
    this.routes = routes;
    this.publicReasons = publicReasons;

    this.defaultRoute = new HttpRoute(this, 'DefaultRoute', {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration('NotFoundIntegration', props.functionOf(DEFAULT_ROUTE.function)),
    });

    // The authorizer is created when the route binds it; drop the identity source it always sets.
    const cfnAuthorizer = this.node.findAll().find((c): c is CfnAuthorizer => c instanceof CfnAuthorizer);
    if (!cfnAuthorizer) throw new Error('HttpLambdaAuthorizer did not create an authorizer');
    if (props.samLocal) cfnAuthorizer.addPropertyOverride('IdentitySource', []);
    else cfnAuthorizer.addPropertyDeletionOverride('IdentitySource');
    this.cfnAuthorizer = cfnAuthorizer;
  }

  /** The base URL of the API (the `$default` stage: no stage segment in the path). */
  get url(): string {
    return this.stage.url;
  }
}
