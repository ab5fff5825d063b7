import { createRequire } from 'node:module';
import { Validations, type Acknowledgment } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type * as CdkNag from 'cdk-nag';

// cdk-nag is CommonJS whose named exports Node's ES module loader cannot detect (`__exportStar`),
// and whose `__esModule` marker makes a default import undefined under tsx: load it with require,
// once, here.
const cdkNag = createRequire(import.meta.url)('cdk-nag') as typeof CdkNag;

export const { AwsSolutionsChecks } = cdkNag;

/**
 * Registers cdk-nag's AwsSolutions pack on the app. cdk-nag 3 is a CDK validation plugin (not an
 * Aspect): it runs when the app synthesizes, and any unacknowledged finding fails the synthesis
 * (`cdk synth` exits non-zero; `app.synth()` and `Template.fromStack` throw with the report).
 */
export function addNagChecks(app: IConstruct): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
}

/**
 * Acknowledges (suppresses) cdk-nag findings on a construct and its children, each with its reason.
 * A finding of a rule that reports several (IAM5) is named `AwsSolutions-IAM5[Resource::...]`.
 */
export function acknowledge(scope: IConstruct, ...rules: Acknowledgment[]): void {
  Validations.of(scope).acknowledge(...rules);
}
