import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, rmSync } from 'node:fs';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SAM_LOCAL_CONTEXT } from '../../lib/app.js';
import { FUNCTION_LOGICAL_IDS } from '../../lib/empty-legs-stack.js';
import { addNagChecks, AwsSolutionsChecks } from '../../lib/nag.js';
import { readConfig } from '../../src/config.js';
import { props, resourcesOfType, synthesize, type Synthesized } from './helpers.js';

describe('cdk-nag is wired so that a finding fails synthesis', () => {
  const apps: App[] = [];
  afterAll(() => {
    for (const app of apps) rmSync(app.outdir, { recursive: true, force: true });
  });

  function appWithFinding() {
    const app = new App();
    apps.push(app);
    addNagChecks(app);
    const stack = new Stack(app, 'NagProbe');
    // An old runtime and the managed basic-execution policy: AwsSolutions-L1 and -IAM4.
    new LambdaFunction(stack, 'Old', {
      runtime: Runtime.NODEJS_18_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => ({})'),
    });
    return stack;
  }

  it('the pack reports an unacknowledged finding', () => {
    const report = new AwsSolutionsChecks().validateScope(appWithFinding());
    expect(report.success).toBe(false);
    expect(report.violations.map((v) => v.ruleName)).toEqual(expect.arrayContaining(['AwsSolutions-L1']));
  });

  it('synthesis (what cdk synth and Template.fromStack run) throws with the finding', () => {
    const stack = appWithFinding();
    expect(() => Template.fromStack(stack)).toThrow(/AwsSolutions-L1/);
  });
});

describe('sam local (cdk synth -c samLocal=true) and events/env.json', () => {
  let synth: Synthesized;
  beforeAll(() => {
    // No esbuild here: only the templates matter.
    synth = synthesize({ [SAM_LOCAL_CONTEXT]: 'true', 'aws:cdk:bundling-stacks': [] });
  }, 120_000);
  afterAll(() => {
    if (synth) rmSync(synth.app.outdir, { recursive: true, force: true });
  });

  const envFile = JSON.parse(readFileSync(new URL('../../events/env.json', import.meta.url), 'utf8')) as Record<
    string,
    Record<string, string>
  >;

  function variables(logicalId: string): Record<string, unknown> {
    const f = resourcesOfType(synth.templates.sandbox, 'AWS::Lambda::Function')[logicalId]!;
    return (props(f).Environment as { Variables: Record<string, unknown> }).Variables;
  }

  it('declares an empty DYNAMODB_ENDPOINT on every function (so sam can override it) and warns', () => {
    for (const id of Object.values(FUNCTION_LOGICAL_IDS)) expect(variables(id).DYNAMODB_ENDPOINT).toBe('');
    Annotations.fromStack(synth.stacks.sandbox).hasWarning('*', Match.stringLikeRegexp('Do not deploy this template'));
  });

  it('gives the authorizer an empty IdentitySource list (sam local start-api needs a list)', () => {
    const authorizers = Object.values(resourcesOfType(synth.templates.sandbox, 'AWS::ApiGatewayV2::Authorizer'));
    expect(authorizers).toHaveLength(1);
    expect(props(authorizers[0]!).IdentitySource).toEqual([]);
  });

  it('env.json names exactly the functions of the template, by logical id', () => {
    const ids = Object.keys(resourcesOfType(synth.templates.sandbox, 'AWS::Lambda::Function')).sort();
    expect(Object.keys(envFile).sort()).toEqual(ids);
    expect(ids).toEqual(Object.values(FUNCTION_LOGICAL_IDS).sort());
  });

  it('env.json sets only variables the template declares (sam ignores the others)', () => {
    for (const [id, vars] of Object.entries(envFile)) {
      const declared = Object.keys(variables(id));
      expect(declared).toEqual(expect.arrayContaining(Object.keys(vars)));
    }
  });

  it('env.json points the DynamoDB functions at DynamoDB Local with the local table names of npm start', () => {
    const local = readConfig({});
    expect(envFile[FUNCTION_LOGICAL_IDS.listEmptyLegs]).toMatchObject({
      DYNAMODB_ENDPOINT: 'http://host.docker.internal:8000',
      LEGS_TABLE_NAME: local.legsTableName,
      STAGE: 'sandbox',
    });
    expect(envFile[FUNCTION_LOGICAL_IDS.authorizer]).toMatchObject({
      DYNAMODB_ENDPOINT: 'http://host.docker.internal:8000',
      KEYS_TABLE_NAME: local.keysTableName,
      STAGE: 'sandbox',
    });
    // Every value is a valid setting for src/config.ts.
    for (const vars of Object.values(envFile)) expect(() => readConfig(vars)).not.toThrow();
  });
});
