/**
 * `npm run mcp`: the MCP tools as a stdio server (for desktop clients), calling the HTTP API at
 * EMPTY_LEGS_URL with EMPTY_LEGS_KEY (docs/api.md, "MCP"). Standard output carries only JSON-RPC:
 * the runtime's logs go to standard error (silent unless POWERTOOLS_LOG_LEVEL asks for them).
 */
process.env.POWERTOOLS_DEV = 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
console.log = console.error;
console.info = console.error;
console.warn = console.error;
console.debug = console.error;

const { main } = await import('./mcp-stdio.js');
const { runCommand } = await import('./command.js');
runCommand(main);
