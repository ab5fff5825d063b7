import { OPENAPI_DOCUMENT_JSON } from '../contract/index.js';

/**
 * The MCP tools' schemas and texts taken from the contract (docs/openapi.yaml, bundled as
 * src/contract/openapi-document.ts): a response's `data` as a tool's outputSchema, a query
 * parameter's description. Pure; the document is parsed once, on first use.
 */
export type JsonSchema = Record<string, unknown>;

interface OpenApiDocument {
  components: {
    schemas: Record<string, JsonSchema>;
    parameters: Record<string, { description?: string; schema?: JsonSchema }>;
  };
}

let parsed: OpenApiDocument | undefined;
function document(): OpenApiDocument {
  return (parsed ??= JSON.parse(OPENAPI_DOCUMENT_JSON) as OpenApiDocument);
}

const REF = '#/components/schemas/';

/** `schema` with every `$ref` to a component schema replaced by that schema (the contract has no cycles). */
function inlined(schema: unknown, seen: readonly string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlined(s, seen));
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith(REF)) {
    const name = ref.slice(REF.length);
    if (seen.includes(name)) throw new Error(`The contract's schema ${name} refers to itself`);
    return inlined(componentSchema(name), [...seen, name]);
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inlined(value, seen)]));
}

function componentSchema(name: string): JsonSchema {
  const schema = document().components.schemas[name];
  if (schema === undefined) throw new Error(`The contract has no schema ${name}`);
  return schema;
}

/** A component schema of the contract, self-contained (no `$ref`). */
export function contractSchema(name: string): JsonSchema {
  return inlined(componentSchema(name)) as JsonSchema;
}

/** The `data` of a success envelope (`ListResponse`, `LegResponse`, ...), self-contained. */
export function responseData(envelope: string): JsonSchema {
  const data = (componentSchema(envelope).properties as Record<string, unknown> | undefined)?.data;
  if (data === undefined) throw new Error(`The contract's ${envelope} has no data`);
  return inlined(data) as JsonSchema;
}

/** A query parameter's description in the contract, if it has one. */
export function parameterDescription(name: string): string | undefined {
  return document().components.parameters[name]?.description?.trim();
}

/** A parameter of the contract (`components.parameters`) as a JSON Schema, with its description. */
export function parameterSchema(name: string): JsonSchema {
  const parameter = document().components.parameters[name];
  if (parameter?.schema === undefined) throw new Error(`The contract has no parameter ${name}`);
  const description = parameter.description?.trim();
  return { ...(inlined(parameter.schema) as JsonSchema), ...(description === undefined ? {} : { description }) };
}
