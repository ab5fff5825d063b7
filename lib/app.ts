import { App } from 'aws-cdk-lib';
import { edgeStackName, stackName } from '../src/deployment.js';
import { STAGES } from '../src/config.js';
import { EdgeWebAclStack } from './constructs/edge.js';
import { EmptyLegsStack } from './empty-legs-stack.js';
import { addNagChecks } from './nag.js';
import { stageConfig } from './stage-config.js';

/** Context key: `cdk synth -c samLocal=true` writes templates for `sam local` only (never deploy them). */
export const SAM_LOCAL_CONTEXT = 'samLocal';

/**
 * The CDK app: one stack per stage (`EmptyLegs-sandbox`, `EmptyLegs-prod`), environment-agnostic
 * (no account, no region, no lookups) so that it synthesizes offline. cdk-nag's AwsSolutions pack
 * checks every resource; an unacknowledged finding fails the synthesis.
 */
export function buildApp(app: App = new App()): App {
  const samLocal = String(app.node.tryGetContext(SAM_LOCAL_CONTEXT) ?? 'false') === 'true';
  for (const stage of STAGES) {
    const config = stageConfig(stage);
    // The stage's web ACL, in us-east-1 (CloudFront's); deployed first, with the stage.
    const edge = new EdgeWebAclStack(app, edgeStackName(stage), {
      stage,
      waf: config.waf,
      description: `Empty-leg listing API, stage ${stage}: the web ACL of its CloudFront distribution (us-east-1)`,
    });
    new EmptyLegsStack(app, stackName(stage), { config, samLocal }).addStackDependency(edge);
  }
  addNagChecks(app);
  return app;
}
