import { readFileSync, writeFileSync } from 'node:fs';
import { openApiModuleSource } from './openapi-source.js';

/**
 * `npm run openapi`: regenerates src/contract/openapi-document.ts from docs/openapi.yaml, so the
 * functions bundle the document (there is no docs/ folder in a Lambda). `--check` exits 1 when the
 * committed module is out of date instead of writing it.
 */
const TARGET = 'src/contract/openapi-document.ts';
const source = openApiModuleSource(readFileSync('docs/openapi.yaml', 'utf8'));
if (process.argv.includes('--check')) {
  if (readFileSync(TARGET, 'utf8') !== source) {
    console.error(`${TARGET} is out of date: run npm run openapi`);
    process.exit(1);
  }
  console.log(`${TARGET} is up to date`);
} else {
  writeFileSync(TARGET, source);
  console.log(`Wrote ${TARGET}`);
}
