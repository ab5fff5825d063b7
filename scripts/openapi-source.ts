import { parse } from 'yaml';

/**
 * The source of src/contract/openapi-document.ts for a given docs/openapi.yaml: the document as one
 * JSON string constant. Used by `npm run openapi` (which writes it) and by a unit test (which fails
 * when the committed module is out of date).
 */
export function openApiModuleSource(yamlText: string): string {
  const json = JSON.stringify(parse(yamlText) as unknown);
  return [
    '// Generated from docs/openapi.yaml by `npm run openapi`. Do not edit: edit the YAML and regenerate.',
    '/** The OpenAPI document, as served by GET /open/v1/openapi.json. */',
    `export const OPENAPI_DOCUMENT_JSON = ${JSON.stringify(json)};`,
    '',
  ].join('\n');
}
