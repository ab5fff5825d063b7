// Runs before every test file: quiet logs, and never talk to a real AWS account by accident.
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'test';
process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
