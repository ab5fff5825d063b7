import { beforeAll, describe, expect, it } from '@jest/globals';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import {
  EDGE_REGION,
  WAF_BLOCK_BODY,
  WEB_ACL_OUTPUT,
  WEB_ACL_PARAMETER,
  webAclArnPattern,
  webAclName,
  type EdgeWebAclStack,
} from '../../lib/constructs/edge.js';
import { ACCESS_LOG_FIELDS } from '../../lib/constructs/http-api.js';
import { FUNCTION_LOGICAL_IDS } from '../../lib/empty-legs-stack.js';
import { STAGE_CONFIGS } from '../../lib/stage-config.js';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../src/auth/edge.js';
import { readConfig, STAGES, type Stage } from '../../src/config.js';
import { edgeStackName, STACK_OUTPUTS } from '../../src/deployment.js';
import { onlyResource, props, resourcesOfType, synthesize, type Synthesized } from './helpers.js';

/**
 * The edge of each stage (docs/deploy.md, "The edge"): a web ACL with a rate-based rule per
 * address, in a stack of its own in us-east-1 (CloudFront's web ACLs live there), and in the stage's
 * stack (given its ARN as a parameter that admits only that web ACL) a CloudFront distribution
 * with that web ACL in front of the HTTP API, whose origin requests
 * carry a secret the authorizer requires, so the execute-api endpoint does not serve the keyed
 * routes. cdk-nag runs in synthesize() on all four stacks.
 */
let synth: Synthesized;
let edges: Record<Stage, { stack: EdgeWebAclStack; template: Template }>;
beforeAll(() => {
  synth = synthesize({ 'aws:cdk:bundling-stacks': [] });
  const edgeOf = (stage: Stage) => {
    const stack = synth.app.node.findChild(edgeStackName(stage)) as EdgeWebAclStack;
    return { stack, template: Template.fromStack(stack) };
  };
  edges = { sandbox: edgeOf('sandbox'), prod: edgeOf('prod') };
}, 120_000);

const json = (x: unknown) => JSON.stringify(x);

describe.each(STAGES)('stage %s', (stage) => {
  const config = STAGE_CONFIGS[stage];
  const main = () => synth.templates[stage];

  it('has a web ACL for CloudFront in us-east-1 whose rule blocks an address over its limit with 429 and Retry-After', () => {
    const { stack, template } = edges[stage];
    expect(Stack.of(stack).region).toBe(EDGE_REGION);
    const [, acl] = onlyResource(template, 'AWS::WAFv2::WebACL');
    const p = props(acl) as {
      Scope: string;
      DefaultAction: unknown;
      Rules: { Statement: { RateBasedStatement: Record<string, unknown> }; Action: { Block: { CustomResponse: Record<string, unknown> } } }[];
      CustomResponseBodies: Record<string, { Content: string; ContentType: string }>;
    };
    expect(p.Scope).toBe('CLOUDFRONT');
    expect(p.DefaultAction).toEqual({ Allow: {} });
    expect(p.Rules).toHaveLength(1);
    const rule = p.Rules[0]!;
    expect(rule.Statement.RateBasedStatement).toEqual({
      AggregateKeyType: 'IP',
      Limit: config.waf.requestsPerAddress,
      EvaluationWindowSec: config.waf.windowSeconds,
    });
    const response = rule.Action.Block.CustomResponse as { ResponseCode: number; CustomResponseBodyKey: string; ResponseHeaders: { Name: string; Value: string }[] };
    expect(response.ResponseCode).toBe(429);
    expect(response.ResponseHeaders).toEqual([{ Name: 'Retry-After', Value: String(config.waf.windowSeconds) }]);
    expect(p.CustomResponseBodies[response.CustomResponseBodyKey]).toEqual({ ContentType: 'APPLICATION_JSON', Content: WAF_BLOCK_BODY });
    // API Gateway's own 429 body (docs/openapi.yaml GatewayError).
    expect(JSON.parse(WAF_BLOCK_BODY)).toEqual({ message: 'Too Many Requests' });
    // No one address can spend the stage's throttle on its own.
    expect(config.waf.requestsPerAddress / config.waf.windowSeconds).toBeLessThan(config.throttling.rateLimit);
    // Its ARN is an output, for the stage's stack.
    const [aclId] = onlyResource(template, 'AWS::WAFv2::WebACL');
    expect(props(acl).Name).toBe(webAclName(stage));
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs[WEB_ACL_OUTPUT]?.Value).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
  });

  it("puts CloudFront, with that web ACL, in front of the API; the stage's stack is deployed after the web ACL's", () => {
    const [, distribution] = onlyResource(main(), 'AWS::CloudFront::Distribution');
    const dc = props(distribution).DistributionConfig as Record<string, unknown>;
    expect(dc.WebACLId).toEqual({ Ref: WEB_ACL_PARAMETER });
    expect(synth.stacks[stage].dependencies.map((s) => s.stackName)).toContain(edgeStackName(stage));
    // The parameter admits the stage's own web ACL for CloudFront, and nothing else.
    const parameter = (main().toJSON().Parameters as Record<string, { AllowedPattern: string; Default?: unknown }>)[WEB_ACL_PARAMETER]!;
    expect(parameter.Default).toBeUndefined();
    const pattern = new RegExp(parameter.AllowedPattern);
    expect(parameter.AllowedPattern).toBe(webAclArnPattern(stage));
    const other = stage === 'prod' ? 'sandbox' : 'prod';
    const arn = (name: string, region = EDGE_REGION, scope = 'global') => `arn:aws:wafv2:${region}:123456789012:${scope}/webacl/${name}/0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9`;
    expect(pattern.test(arn(webAclName(stage)))).toBe(true);
    expect(pattern.test(arn(webAclName(other)))).toBe(false);
    expect(pattern.test(arn(webAclName(stage), 'eu-west-1', 'regional'))).toBe(false);
    expect(pattern.test('')).toBe(false);

    const [apiId] = onlyResource(main(), 'AWS::ApiGatewayV2::Api');
    const origins = dc.Origins as { DomainName: unknown; CustomOriginConfig: Record<string, unknown>; OriginCustomHeaders: { HeaderName: string; HeaderValue: unknown }[] }[];
    expect(origins).toHaveLength(1);
    expect(json(origins[0]!.DomainName)).toContain(json({ 'Fn::GetAtt': [apiId, 'ApiEndpoint'] }));
    expect(origins[0]!.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
    const behavior = dc.DefaultCacheBehavior as Record<string, unknown>;
    // Nothing cached (every answer is per key, Cache-Control: no-store); every method reaches the API.
    expect(behavior.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    expect(behavior.AllowedMethods).toEqual(expect.arrayContaining(['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE']));
    expect(behavior.ViewerProtocolPolicy).toBe('https-only');
    const [policyId, policy] = onlyResource(main(), 'AWS::CloudFront::OriginRequestPolicy');
    expect(behavior.OriginRequestPolicyId).toEqual({ Ref: policyId });
    const config_ = props(policy).OriginRequestPolicyConfig as { HeadersConfig: { Headers: string[] }; QueryStringsConfig: Record<string, unknown> };
    expect(config_.HeadersConfig.Headers).toEqual(expect.arrayContaining(['x-api-key', 'if-none-match', VIEWER_ADDRESS_HEADER]));
    expect(config_.QueryStringsConfig).toEqual({ QueryStringBehavior: 'all' });

    const outputs = main().toJSON().Outputs as Record<string, { Value: unknown }>;
    const [distributionId] = onlyResource(main(), 'AWS::CloudFront::Distribution');
    expect(json(outputs[STACK_OUTPUTS.apiUrl]?.Value)).toContain(json({ 'Fn::GetAtt': [distributionId, 'DomainName'] }));
  });

  it('sends a generated secret to the API in X-Origin-Verify, and gives the authorizer the same secret', () => {
    const [, distribution] = onlyResource(main(), 'AWS::CloudFront::Distribution');
    const origin = (props(distribution).DistributionConfig as { Origins: { OriginCustomHeaders: { HeaderName: string; HeaderValue: unknown }[] }[] }).Origins[0]!;
    const [secretId, secret] = onlyResource(main(), 'AWS::SecretsManager::Secret', (_r, id) => id.startsWith('EdgeOriginSecret'));
    expect(props(secret).GenerateSecretString).toMatchObject({ PasswordLength: 48, ExcludePunctuation: true });
    const header = origin.OriginCustomHeaders.find((h) => h.HeaderName === ORIGIN_SECRET_HEADER);
    expect(json(header?.HeaderValue)).toContain(json({ Ref: secretId }));
    expect(json(header?.HeaderValue)).toContain('resolve:secretsmanager');
    const authorizer = resourcesOfType(main(), 'AWS::Lambda::Function')[FUNCTION_LOGICAL_IDS.authorizer]!;
    const variables = (props(authorizer).Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.ORIGIN_SECRET).toEqual(header?.HeaderValue);
    // And the limit of failed authentications per address, from the stage's configuration.
    expect(variables).toMatchObject({ FAILED_AUTH_PER_MINUTE: String(config.failedAuth.perMinute), FAILED_AUTH_BURST: String(config.failedAuth.burst) });
    const read = readConfig({ FAILED_AUTH_PER_MINUTE: String(variables.FAILED_AUTH_PER_MINUTE), FAILED_AUTH_BURST: String(variables.FAILED_AUTH_BURST) });
    expect(read.failedAuthLimit).toEqual({ rate: config.failedAuth.perMinute / 60, burst: config.failedAuth.burst });
    // No other function gets it.
    for (const [id, f] of Object.entries(resourcesOfType(main(), 'AWS::Lambda::Function'))) {
      if (id !== FUNCTION_LOGICAL_IDS.authorizer) expect(json(props(f).Environment)).not.toContain('ORIGIN_SECRET');
    }
  });

  it("logs the client's address the authorizer found (behind CloudFront, the source address is CloudFront's)", () => {
    expect(ACCESS_LOG_FIELDS.clientIp).toBe('$context.authorizer.clientIp');
    const [, stage_] = onlyResource(main(), 'AWS::ApiGatewayV2::Stage');
    expect(json(props(stage_).AccessLogSettings)).toContain('$context.authorizer.clientIp');
  });
});
