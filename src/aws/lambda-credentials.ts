import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (lib/bundling.ts aliases
 * it): credentials from the environment only, where Lambda puts the role's (docs/performance.md,
 * "Decision log"). Local tools and tests are not bundled and keep the full chain.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]): ReturnType<typeof fromEnv> => fromEnv(init);
