// Entry point of the CDK app (cdk.json: `npx tsx bin/app.ts`). The app itself is lib/app.ts.
import { buildApp } from '../lib/app.js';

buildApp().synth();
