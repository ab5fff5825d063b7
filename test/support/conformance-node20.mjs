// Lets `@modelcontextprotocol/conformance` (written for Node 22, which CI runs) load on Node 20:
// its import of fs.globSync, used by none of the server scenarios, gets a stand-in. No-op on Node 22.
import { register } from 'node:module';
import fs from 'node:fs';

if (typeof fs.globSync !== 'function') {
  const shim = "import fs from 'node:fs'; export * from 'node:fs'; export default fs; export function globSync() { throw new Error('fs.globSync needs Node 22'); }";
  const target = `data:text/javascript,${encodeURIComponent(shim)}`;
  const hooks = `export async function resolve(specifier, context, next) {
    if ((specifier === 'fs' || specifier === 'node:fs') && (context.parentURL ?? '').includes('@modelcontextprotocol/conformance')) return { url: ${JSON.stringify(target)}, shortCircuit: true };
    return next(specifier, context);
  }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}
