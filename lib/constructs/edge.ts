import { CfnOutput, CfnParameter, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  OriginProtocolPolicy,
  OriginRequestHeaderBehavior,
  OriginRequestPolicy,
  OriginRequestQueryStringBehavior,
  PriceClass,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import type { Stage } from '../../src/config.js';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../src/auth/edge.js';

/**
 * The edge in front of the HTTP API (docs/deploy.md, "The edge"): an HTTP API takes no WAF web ACL,
 * so a CloudFront distribution serves the API, with a web ACL whose rate-based rule blocks an
 * address over its request limit. A web ACL for CloudFront must live in us-east-1: it is in a
 * stack of its own there (EdgeWebAclStack, output `WebAclArn`), and the stage's stack takes its ARN
 * as the parameter `EdgeWebAclArn` (a stack cannot read another region's resources), whose pattern
 * admits only that stage's web ACL.
 */
export const EDGE_REGION = 'us-east-1';

export interface WafSettings {
  /** Requests one address may send in `windowSeconds` before the web ACL answers 429 (WAF's minimum is 10). */
  readonly requestsPerAddress: number;
  /** The rate-based rule's evaluation window: 60, 120, 300 or 600 s. */
  readonly windowSeconds: 60 | 120 | 300 | 600;
}

/** The name of a stage's web ACL. */
export function webAclName(stage: Stage): string {
  return `empty-legs-${stage}`;
}

/** The edge stack's output and the stage stack's parameter that carry the web ACL's ARN. */
export const WEB_ACL_OUTPUT = 'WebAclArn';
export const WEB_ACL_PARAMETER = 'EdgeWebAclArn';

/** The ARN of the stage's own web ACL (scope CLOUDFRONT, us-east-1), and nothing else. */
export function webAclArnPattern(stage: Stage): string {
  return `^arn:aws[a-z-]*:wafv2:${EDGE_REGION}:[0-9]{12}:global/webacl/${webAclName(stage)}/[0-9a-f-]{36}$`;
}

/** The web ACL's custom 429: the body API Gateway's own 429 has, and when to try again. */
export const WAF_BLOCK_BODY = '{"message":"Too Many Requests"}';

export interface EdgeWebAclStackProps extends StackProps {
  readonly stage: Stage;
  readonly waf: WafSettings;
}

/** The stage's web ACL (scope CLOUDFRONT), in us-east-1, and its ARN as an output. */
export class EdgeWebAclStack extends Stack {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeWebAclStackProps) {
    super(scope, id, { ...props, env: { region: EDGE_REGION } });
    const metric = (name: string) => ({ cloudWatchMetricsEnabled: true, metricName: `EmptyLegs-${props.stage}-${name}`, sampledRequestsEnabled: true });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: webAclName(props.stage),
      description: `Empty-leg listing API, stage ${props.stage}: requests per address`,
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: metric('WebAcl'),
      customResponseBodies: { TooManyRequests: { contentType: 'APPLICATION_JSON', content: WAF_BLOCK_BODY } },
      rules: [
        {
          name: 'RequestsPerAddress',
          priority: 0,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: props.waf.requestsPerAddress,
              evaluationWindowSec: props.waf.windowSeconds,
            },
          },
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'TooManyRequests',
                responseHeaders: [{ name: 'Retry-After', value: String(props.waf.windowSeconds) }],
              },
            },
          },
          visibilityConfig: metric('RequestsPerAddress'),
        },
      ],
    });
    new CfnOutput(this, WEB_ACL_OUTPUT, {
      value: this.webAcl.attrArn,
      description: `The web ACL of the stage ${props.stage}: give it to its stack as the parameter ${WEB_ACL_PARAMETER}`,
    });
  }
}

export interface ApiEdgeProps {
  readonly stage: Stage;
  readonly api: HttpApi;
}

/**
 * The distribution in front of the API: every method, nothing cached, the query string and the
 * headers the API reads passed on, CloudFront's viewer address added; the origin secret in
 * `X-Origin-Verify` on every request it sends, which the authorizer requires (so the execute-api
 * endpoint does not serve the keyed routes); the stage's web ACL, by the stack parameter.
 */
export class ApiEdge extends Construct {
  readonly distribution: Distribution;
  readonly originSecret: Secret;
  readonly webAclArn: CfnParameter;

  constructor(scope: Construct, id: string, props: ApiEdgeProps) {
    super(scope, id);
    this.originSecret = new Secret(this, 'OriginSecret', {
      description: `Sent by CloudFront in ${ORIGIN_SECRET_HEADER} to the API of the stage ${props.stage}; the authorizer requires it`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
    });
    this.webAclArn = new CfnParameter(Stack.of(this), WEB_ACL_PARAMETER, {
      type: 'String',
      description: `ARN of the web ACL of the stage ${props.stage}: the output ${WEB_ACL_OUTPUT} of its edge stack in ${EDGE_REGION}`,
      allowedPattern: webAclArnPattern(props.stage),
      constraintDescription: `the ARN of the web ACL ${webAclName(props.stage)} (scope CLOUDFRONT, ${EDGE_REGION})`,
    });
    const originRequestPolicy = new OriginRequestPolicy(this, 'OriginRequests', {
      comment: `empty-legs ${props.stage}: what the API reads, and the viewer's address`,
      headerBehavior: OriginRequestHeaderBehavior.allowList('x-api-key', 'if-none-match', 'accept', 'user-agent', VIEWER_ADDRESS_HEADER),
      queryStringBehavior: OriginRequestQueryStringBehavior.all(),
    });
    const apiDomain = Fn.select(2, Fn.split('/', props.api.apiEndpoint));
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Empty-leg listing API, stage ${props.stage}`,
      defaultBehavior: {
        origin: new HttpOrigin(apiDomain, {
          protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
          customHeaders: { [ORIGIN_SECRET_HEADER]: this.originSecret.secretValue.unsafeUnwrap() },
        }),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy,
        compress: true,
      },
      priceClass: PriceClass.PRICE_CLASS_100,
      webAclId: this.webAclArn.valueAsString,
    });
  }

  /** The API's public base URL (ends with `/`). */
  get url(): string {
    return `https://${this.distribution.distributionDomainName}/`;
  }
}
