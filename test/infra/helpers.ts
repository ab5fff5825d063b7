import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../lib/app.js';
import type { EmptyLegsStack } from '../../lib/empty-legs-stack.js';
import { stackName } from '../../src/deployment.js';
import type { Stage } from '../../src/config.js';

/** A CloudFormation resource as found in a synthesized template. */
export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  Metadata?: Record<string, unknown>;
}

export interface Synthesized {
  app: App;
  stacks: Record<Stage, EmptyLegsStack>;
  templates: Record<Stage, Template>;
}

/**
 * The real app of bin/app.ts (both stages, cdk-nag registered), synthesized once. `context` lets a
 * test synthesize a variant (e.g. `samLocal`, or `aws:cdk:bundling-stacks: []` to skip esbuild).
 * Template.fromStack synthesizes the whole app, so cdk-nag runs here: an unacknowledged finding
 * throws.
 */
export function synthesize(context: Record<string, unknown> = {}): Synthesized {
  const app = buildApp(new App({ context }));
  const stackOf = (stage: Stage) => app.node.findChild(stackName(stage)) as EmptyLegsStack;
  const stacks = { sandbox: stackOf('sandbox'), prod: stackOf('prod') };
  const templates = {
    sandbox: Template.fromStack(stacks.sandbox),
    prod: Template.fromStack(stacks.prod),
  };
  return { app, stacks, templates };
}

export function resourcesOfType(template: Template, type: string): Record<string, CfnResource> {
  return template.findResources(type) as Record<string, CfnResource>;
}

/** The single resource of `type` for which `pick` is true; fails when there is not exactly one. */
export function onlyResource(
  template: Template,
  type: string,
  pick: (r: CfnResource, id: string) => boolean = () => true,
): [string, CfnResource] {
  const found = Object.entries(resourcesOfType(template, type)).filter(([id, r]) => pick(r, id));
  if (found.length !== 1) {
    throw new Error(`Expected exactly one ${type}, found ${found.length}: ${found.map(([id]) => id).join(', ')}`);
  }
  return found[0]!;
}

export function props(resource: CfnResource): Record<string, unknown> {
  return resource.Properties ?? {};
}

export const ref = (logicalId: string) => ({ Ref: logicalId });
export const arnOf = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });

/** Every string found anywhere in a JSON value. */
export function allStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(allStrings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(allStrings);
  return [];
}

export interface NormalizedStatement {
  Effect: string;
  Action: string[];
  Resource: unknown[];
  Condition?: unknown;
}

/** An IAM statement with Action and Resource as sorted arrays (and its Condition, if any), for order-free comparison. */
export function normalizeStatement(statement: Record<string, unknown>): NormalizedStatement {
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
  return {
    Effect: String(statement.Effect),
    Action: (list(statement.Action) as string[]).slice().sort(),
    Resource: list(statement.Resource)
      .slice()
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ...(statement.Condition !== undefined ? { Condition: statement.Condition } : {}),
  };
}

export function sortStatements(statements: NormalizedStatement[]): NormalizedStatement[] {
  return statements.slice().sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}
