// Runs before every test file: quiet logs, and never talk to a real AWS account by accident.
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'test';
process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// The run's own clock (`npm test -- --at`, or none): a file of a TEST_INSTANTS project that ran
// before in this worker may have moved CLOCK_AT (test/support/at-instant.ts).
const RUN_CLOCK = ['CLOCK_AT', 'CLOCK_AT_ANCHOR'] as const;
for (const name of RUN_CLOCK) {
  const saved = `${name}_OF_RUN`;
  if (process.env[saved] === undefined) process.env[saved] = process.env[name] ?? '';
  if (process.env[saved] === '') delete process.env[name];
  else process.env[name] = process.env[saved];
}
