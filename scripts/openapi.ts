import { readFileSync, writeFileSync } from 'node:fs';
import { CommandError, parseCommandLine, runCommand } from '../cli/command.js';
import { openApiModuleSource } from './openapi-source.js';

/**
 * `npm run openapi`: regenerates src/contract/openapi-document.ts from docs/openapi.yaml, so the
 * functions bundle the document (there is no docs/ folder in a Lambda). `--check` exits 1 when the
 * committed module is out of date instead of writing it.
 */
const TARGET = 'src/contract/openapi-document.ts';

function main(): void {
  const { values } = parseCommandLine(process.argv.slice(2), { check: { type: 'boolean' } }, false);
  const source = openApiModuleSource(readFileSync('docs/openapi.yaml', 'utf8'));
  if (values.check) {
    if (readFileSync(TARGET, 'utf8') !== source) throw CommandError.failure(`${TARGET} is out of date: run npm run openapi`);
    console.log(`${TARGET} is up to date`);
    return;
  }
  writeFileSync(TARGET, source);
  console.log(`Wrote ${TARGET}`);
}

runCommand(main);
