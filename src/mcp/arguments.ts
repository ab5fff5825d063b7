import { invalidParameter } from '../errors.js';
import type { ValueShape } from '../http/query-params.js';
import { INCLUDE_PATTERN } from '../kernel/leg/blocks.js';
import { LIST_QUERY_FIELDS, PARAMETER_SHAPES } from '../listing/index.js';
import { parameterDescription, type JsonSchema } from './contract-schemas.js';

/**
 * A tool's arguments (JSON) as the API's parameters (query-string texts): each argument of the type
 * its schema states, then the API's own parser judges the text. Pure. A refusal is INVALID_PARAMETER.
 */
export type Arguments = Readonly<Record<string, unknown>> | undefined;
export type ArgumentType = 'string' | 'integer' | 'number' | 'boolean';

const TYPE_RULES: Readonly<Record<ArgumentType, string>> = {
  string: 'must be a non-empty string (leave it out for none)',
  integer: 'must be an integer (a JSON number)',
  number: 'must be a number',
  boolean: 'must be true or false (a JSON boolean)',
};

/** An integer's decimal digits, however large (no exponent, no grouping; String's below 1e21). */
function integerText(n: number): string {
  return Math.abs(n) < 1e21 && !Object.is(n, -0) ? String(n) : n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 0 });
}

/** One argument's query-string text, or INVALID_PARAMETER naming it when its JSON type is not `type`. */
export function argumentText(name: string, value: unknown, type: ArgumentType): string {
  if (type === 'string' && typeof value === 'string' && value !== '') return value;
  if (type === 'integer' && typeof value === 'number' && Number.isInteger(value)) return integerText(value);
  if (type === 'number' && typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (type === 'boolean' && typeof value === 'boolean') return String(value);
  throw invalidParameter(name, TYPE_RULES[type]);
}

/** The arguments as texts, each of the type `types` gives; an argument it does not name is refused. */
export function argumentTexts(args: Arguments, types: Readonly<Record<string, ArgumentType>>): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const [name, value] of Object.entries(args ?? {})) {
    const type = types[name];
    if (type === undefined) throw invalidParameter(name, `is not an argument of this tool (it takes ${Object.keys(types).join(', ') || 'none'})`);
    texts[name] = argumentText(name, value, type);
  }
  return texts;
}

/** `include` (src/http/include.ts, read beside the listing's query by the list and by-id routes): its shape from its rule. */
export const INCLUDE_SHAPE: ValueShape = { schema: { type: 'string', pattern: INCLUDE_PATTERN.source }, exact: false };

/** The search's arguments: every listing parameter's shape from its rule (src/listing/query.ts), and `include`. */
export const SEARCH_SHAPES: Readonly<Record<string, ValueShape>> = {
  ...Object.fromEntries(LIST_QUERY_FIELDS.map((name) => [name, PARAMETER_SHAPES[name]!])),
  include: INCLUDE_SHAPE,
};

/** The JSON types of `shapes` (what `argumentTexts` reads). */
export const typesOf = (shapes: Readonly<Record<string, ValueShape>>): Record<string, ArgumentType> =>
  Object.fromEntries(Object.entries(shapes).map(([name, shape]) => [name, shape.schema.type]));

export const SEARCH_TYPES: Readonly<Record<string, ArgumentType>> = typesOf(SEARCH_SHAPES);

/** Each of `shapes` as a property of an input schema, its description from the contract's parameter of that name. */
export function shapeProperties(shapes: Readonly<Record<string, ValueShape>>): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(shapes).map(([name, shape]) => {
      const description = parameterDescription(name);
      return [name, { ...shape.schema, ...(description === undefined ? {} : { description }) }];
    }),
  );
}

/** The search's input schema: every listing parameter, its shape from its rule, its description from the contract. */
export function searchInputSchema(): JsonSchema {
  return { type: 'object', properties: shapeProperties(SEARCH_SHAPES), additionalProperties: false };
}
