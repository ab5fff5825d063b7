import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (lib/bundling.ts aliases
 * it). Lambda always hands a function its role's credentials in AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, so the rest of the default chain (SSO, ini files,
 * STS web identity, instance metadata: about 135 kB minified) is dead weight in a function.
 * Local tools and tests are not bundled and keep the full chain.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]): ReturnType<typeof fromEnv> => fromEnv(init);
