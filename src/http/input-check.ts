import { Kind, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { fieldProblems, jsonPathOf, validationError, type AjvIssue, type FieldProblem } from './errors';

/**
 * Objects and arrays nested in a JSON body, the body itself included. Far beyond what any field
 * needs (a product batch uses 4), and far below what would exhaust a stack anywhere downstream
 * (idempotency fingerprints, serializers, PostgreSQL's jsonb).
 */
export const MAX_NESTING = 32;

/**
 * Text PostgreSQL cannot store: NUL, and UTF-16 surrogates without their pair (they have no
 * UTF-8 form). Both are valid in JSON text (`\u0000`, `\ud800`).
 */
// eslint-disable-next-line no-control-regex -- NUL is what it looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const whyUnstorable = (text: string) =>
  text.includes('\u0000') ? 'must not contain the NUL character (U+0000)' : 'must not contain an unpaired UTF-16 surrogate';

/** A JSON pointer segment, as Ajv writes `instancePath`. */
const pointerSegment = (key: string | number) => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/**
 * The first place where `body` nests deeper than MAX_NESTING, as a field problem; undefined when
 * it does not. Iterative, so that no document can exhaust the stack.
 */
export function nestingProblem(body: unknown): FieldProblem | undefined {
  interface Frame {
    value: object;
    depth: number;
    parent: Frame | undefined;
    key: string | number;
  }
  const stack: Frame[] = [];
  if (body !== null && typeof body === 'object') stack.push({ value: body, depth: 1, parent: undefined, key: '' });
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    if (frame.depth > MAX_NESTING) {
      let pointer = '';
      for (let at: Frame | undefined = frame; at?.parent; at = at.parent) pointer = pointerSegment(at.key) + pointer;
      return { field: jsonPathOf(pointer), message: `is nested deeper than ${MAX_NESTING} levels of objects and arrays` };
    }
    for (const [key, child] of Object.entries(frame.value)) {
      if (child !== null && typeof child === 'object') {
        stack.push({ value: child, depth: frame.depth + 1, parent: frame, key: Array.isArray(frame.value) ? Number(key) : key });
      }
    }
  }
  return undefined;
}

/**
 * The schema that describes `key` of a value described by `schema`; undefined when the schema
 * says nothing usable about it (the value is then checked whole).
 */
function childSchema(schema: TSchema | undefined, key: string | number): TSchema | undefined {
  if (!schema) return undefined;
  if (typeof key === 'number') return typeof schema.items === 'object' && !Array.isArray(schema.items) ? schema.items : undefined;
  const properties = schema.properties as Record<string, TSchema> | undefined;
  if (properties && Object.hasOwn(properties, key)) return properties[key];
  return typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as TSchema) : undefined;
}

/**
 * Every string (value or object key) in `value` that PostgreSQL cannot store, as validation
 * issues at their JSON pointer. A part the schema leaves open (`Type.Unknown()`, as the items of
 * the order batch) is skipped: whoever takes it checks it item by item (`bodyCheck`).
 */
export function unstorableText(value: unknown, schema?: TSchema): AjvIssue[] {
  interface Item {
    value: unknown;
    pointer: string;
    schema: TSchema | undefined;
    /** The object key the value is held under, checked like a value. */
    key?: string;
  }
  const issues: AjvIssue[] = [];
  const issue = (pointer: string, message: string) => issues.push({ instancePath: pointer, keyword: 'text', message, params: {} });
  // Children are pushed last first, so that issues come in document order.
  const stack: Item[] = [{ value, pointer: '', schema }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (item.key !== undefined && UNSTORABLE.test(item.key)) {
      issue(item.pointer, `names a key that ${whyUnstorable(item.key)}`);
      continue;
    }
    if (item.schema?.[Kind] === 'Unknown' && item.pointer !== '') continue;
    if (typeof item.value === 'string') {
      if (UNSTORABLE.test(item.value)) issue(item.pointer, whyUnstorable(item.value));
    } else if (Array.isArray(item.value)) {
      for (let index = item.value.length - 1; index >= 0; index--) {
        stack.push({ value: item.value[index], pointer: item.pointer + pointerSegment(index), schema: childSchema(item.schema, index) });
      }
    } else if (item.value !== null && typeof item.value === 'object') {
      const entries = Object.entries(item.value);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index] as [string, unknown];
        stack.push({ value: child, pointer: item.pointer + pointerSegment(key), schema: childSchema(item.schema, key), key });
      }
    }
  }
  return issues;
}

/**
 * Path parameters and query strings, checked for unstorable text on every route before anything
 * reads them (the route's own schema may not describe them all). Bodies are checked with their
 * schema, in the validator (validation.ts).
 */
export function installInputChecks(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const problems = [
      ...fieldProblems(unstorableText(request.params), 'params'),
      ...fieldProblems(unstorableText(request.query), 'query'),
    ];
    if (problems.length > 0) throw validationError(problems);
  });
}
