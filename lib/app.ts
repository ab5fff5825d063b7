import { App } from 'aws-cdk-lib';
import { stackName } from '../src/deployment.js';
import { STAGES } from '../src/config.js';
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
    new EmptyLegsStack(app, stackName(stage), { config: stageConfig(stage), samLocal });
  }
  addNagChecks(app);
  return app;
}
