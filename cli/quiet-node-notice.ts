// Imported first by the local entry points, before any AWS SDK module is evaluated: the SDK's
// notice that its 2027 releases will need Node 22 is noise on a laptop running Node 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
