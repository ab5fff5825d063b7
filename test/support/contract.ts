import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { parse } from 'yaml';
import { matchPathTemplate } from '../../local/gateway.js';

/**
 * The contract, docs/openapi.yaml, as the end-to-end tests use it: every HTTP request they make
 * goes through `callApi`, which checks the response (status, headers, body) against the document
 * with a JSON Schema 2020-12 validator (ajv) and throws, naming every mismatch, when it does not
 * conform. A path the document does not have must be answered like its `NotFound` response.
 */
export const OPENAPI_FILE = 'docs/openapi.yaml';

type Json = Record<string, unknown>;
interface HeaderObject {
  required?: boolean;
  schema?: unknown;
  $ref?: string;
}
interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: unknown }>;
  $ref?: string;
}
interface Operation {
  operationId: string;
  responses: Record<string, ResponseObject>;
  security?: Record<string, string[]>[];
}
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    responses: Record<string, ResponseObject>;
    parameters: Record<string, Json>;
    schemas: Record<string, Json & { required?: string[]; enum?: string[]; description?: string }>;
  } & Json;
  security?: Record<string, string[]>[];
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export function loadOpenApi(): OpenApiDocument {
  return parse(readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDocument;
}

const document = loadOpenApi();
// ajv-formats is CommonJS (`exports.default = formatsPlugin`): depending on the loader the plugin is
// the namespace's `default`, or that default's own `default`.
type FormatsPlugin = (a: Ajv2020) => unknown;
const formatsDefault = (ajvFormats as unknown as { default: FormatsPlugin | { default: FormatsPlugin } }).default;
const addFormats: FormatsPlugin = typeof formatsDefault === 'function' ? formatsDefault : formatsDefault.default;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
// The whole document under one id, so that schemas are compiled by JSON pointer into it and their
// own `#/components/...` references resolve.
ajv.addSchema(document, 'openapi');

const compiled = new Map<string, ValidateFunction>();
function validatorAt(pointer: string): ValidateFunction {
  let v = compiled.get(pointer);
  if (!v) {
    v = ajv.compile({ $ref: `openapi#${pointer}` });
    compiled.set(pointer, v);
  }
  return v;
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Follows an OpenAPI `$ref` (`#/components/...`) to the object and its JSON pointer. */
function resolve<T extends { $ref?: string }>(value: T, pointer: string): { value: T; pointer: string } {
  if (!value.$ref) return { value, pointer };
  const target = value.$ref.replace(/^#/, '');
  let node: unknown = document;
  for (const raw of target.split('/').slice(1)) node = (node as Json)[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  if (node === undefined) throw new Error(`${OPENAPI_FILE}: unresolved $ref ${value.$ref}`);
  return resolve(node as T, target);
}

export interface CheckedResponse<T = unknown> {
  res: Response;
  /** The parsed JSON body. */
  body: T;
  /** Which part of the document the response was checked against. */
  checkedAgainst: string;
}

/**
 * The operation for a method and path (a concrete path: `/open/v1/empty-legs/EL-1` is the document's
 * `/open/v1/empty-legs/{id}`, matched as the local gateway matches routes), or undefined when the
 * document has none.
 */
export function findOperation(method: string, path: string): { operation: Operation; pointer: string } | undefined {
  const template = path in document.paths ? path : Object.keys(document.paths).find((t) => matchPathTemplate(t, path) !== undefined);
  const operation = template === undefined ? undefined : document.paths[template]?.[method.toLowerCase()];
  if (!template || !operation) return undefined;
  return { operation, pointer: `/paths/${escape(template)}/${method.toLowerCase()}` };
}

/** Every way `res` (with `body`, its JSON) breaks the document; empty when it conforms. */
export function contractViolations(method: string, url: URL, res: Response, body: unknown): string[] {
  const problems: string[] = [];
  const found = findOperation(method, url.pathname);
  let response: { value: ResponseObject; pointer: string };
  if (found) {
    const status = String(res.status);
    const declared = found.operation.responses[status] ?? found.operation.responses.default;
    if (!declared) return [`status ${status} is not documented for ${method} ${url.pathname}`];
    response = resolve(declared, `${found.pointer}/responses/${found.operation.responses[status] ? status : 'default'}`);
  } else {
    // No such route in the document: the service must answer like components/responses/NotFound.
    if (res.status !== 404) problems.push(`${method} ${url.pathname} is not in the document, so it must be 404, got ${res.status}`);
    response = { value: document.components.responses.NotFound!, pointer: '/components/responses/NotFound' };
  }

  for (const [name, declared] of Object.entries(response.value.headers ?? {})) {
    const header = resolve(declared, `${response.pointer}/headers/${escape(name)}`);
    const value = res.headers.get(name);
    if (value === null) {
      if (header.value.required) problems.push(`header ${name} is required but missing`);
      continue;
    }
    if (header.value.schema !== undefined) {
      const validate = validatorAt(`${header.pointer}/schema`);
      const ok: boolean = validate(value);
      if (!ok) problems.push(`header ${name}: '${value}' ${ajv.errorsText(validate.errors)}`);
    }
  }

  const contentType = res.headers.get('content-type') ?? '';
  const mediaType = contentType.split(';')[0]!.trim();
  const media = response.value.content?.[mediaType];
  if (response.value.content === undefined) {
    // A response without content (304 Not Modified): no body, and no Content-Type.
    if (body !== undefined || contentType !== '') problems.push(`no content is documented, got '${contentType}' and ${body === undefined ? 'no body' : 'a body'}`);
  } else if (!media) {
    problems.push(`content type '${contentType}' is not documented (${Object.keys(response.value.content ?? {}).join(', ') || 'no body'})`);
  } else if (media.schema !== undefined) {
    const validate = validatorAt(`${response.pointer}/content/${escape(mediaType)}/schema`);
    if (!validate(body)) {
      problems.push(...(validate.errors ?? []).map((e) => `body${e.instancePath || ''} ${e.message ?? 'is invalid'} (${e.schemaPath})`));
    }
  }

  // Rules stated in the headers' descriptions that a schema cannot express.
  const traceId = (body as { traceId?: unknown } | null)?.traceId;
  const traceHeader = res.headers.get('x-trace-id');
  if (typeof traceId === 'string' && traceHeader !== null && traceHeader !== traceId) {
    problems.push(`X-Trace-Id '${traceHeader}' differs from the body's traceId '${traceId}'`);
  }
  const deprecated = res.headers.get('x-api-key-deprecated') !== null;
  for (const name of ['deprecation', 'sunset']) {
    if ((res.headers.get(name) !== null) !== deprecated) problems.push(`header ${name} must come with X-API-Key-Deprecated, and only with it`);
  }
  return problems;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

/**
 * `fetch` plus the contract check: resolves with the response and its JSON body when the response
 * conforms to docs/openapi.yaml, rejects with every mismatch otherwise.
 */
export async function callApi<T = unknown>(url: string | URL, init: RequestInit = {}): Promise<CheckedResponse<T>> {
  const target = new URL(url);
  const method = (init.method ?? 'GET').toUpperCase();
  const res = await fetch(target, init);
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new ContractViolation(`${method} ${target.pathname}${target.search} -> ${res.status}: the body is not JSON: ${text.slice(0, 200)}`);
  }
  const problems = contractViolations(method, target, res, body);
  if (problems.length > 0) {
    throw new ContractViolation(
      `${method} ${target.pathname}${target.search} -> ${res.status} breaks ${OPENAPI_FILE}:\n  ${problems.join('\n  ')}\nbody: ${text.slice(0, 500)}`,
    );
  }
  const found = findOperation(method, target.pathname);
  return { res, body: body as T, checkedAgainst: found ? `${found.operation.operationId} ${res.status}` : 'NotFound' };
}
