import type { FastifyInstance } from 'fastify';
import { installCursorSigning } from './cursor';
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

/** One character of text PostgreSQL may not store; a cheap test before the exact one. */
// eslint-disable-next-line no-control-regex -- NUL is what it looks for
const SUSPECT = /[\u0000\ud800-\udfff]/;
const isUnstorable = (text: string) => SUSPECT.test(text) && UNSTORABLE.test(text);

/** An object or array met while walking a body; the chain of parents gives its path when needed. */
interface Container {
  value: object;
  depth: number;
  parent: Container | undefined;
  key: string | number;
}

/** The JSON pointer of `key` inside `container`, as Ajv writes `instancePath`. */
function pointerOf(container: Container | undefined, key?: string | number): string {
  let pointer = key === undefined ? '' : pointerSegment(key);
  for (let at = container; at?.parent; at = at.parent) pointer = pointerSegment(at.key) + pointer;
  return pointer;
}
const pointerSegment = (key: string | number) => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/**
 * Walks every object and array of `value` without recursion (no document can exhaust the stack),
 * calling `visit` for each key and value held in one; paths are built only when asked for.
 */
function walk(value: unknown, visit: (child: unknown, key: string | number, container: Container) => 'skip' | 'stop' | void): void {
  if (value === null || typeof value !== 'object') return;
  const stack: Container[] = [{ value, depth: 1, parent: undefined, key: '' }];
  const enter = (child: unknown, key: string | number, container: Container): boolean => {
    const verdict = visit(child, key, container);
    if (verdict === 'stop') return false;
    if (verdict !== 'skip' && child !== null && typeof child === 'object') {
      stack.push({ value: child, depth: container.depth + 1, parent: container, key });
    }
    return true;
  };
  for (let container = stack.pop(); container; container = stack.pop()) {
    const current = container.value;
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++) if (!enter(current[index], index, container)) return;
    } else {
      for (const key of Object.keys(current)) if (!enter((current as Record<string, unknown>)[key], key, container)) return;
    }
  }
}

/**
 * JSON text that may hold NUL or an unpaired surrogate: inside a JSON string they can only be
 * written as escapes (`\u0000`, `\ud800`; raw invalid UTF-8 is read as U+FFFD). A match is only
 * a maybe (`\\u0000` is a backslash and text, a surrogate pair is fine): the values then get looked at.
 */
const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/i;

/**
 * Bodies parsed from JSON text that holds no unstorable text: nothing to look for in them. Only the
 * body itself: remembering every object in it would cost more than it saves.
 */
const storableText = new WeakSet<object>();

/**
 * Checks a parsed JSON body once, before anything walks it: the first place where it nests deeper
 * than MAX_NESTING, as a field problem (undefined when it does not). When its text shows no
 * unstorable text, the body is remembered, so that `unstorableText` skips it.
 */
export function inspectParsedBody(text: string, body: unknown): FieldProblem | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  if (!UNSTORABLE_ESCAPE.test(text)) storableText.add(body);
  const stack: object[] = [body];
  const depths: number[] = [1];
  for (let current = stack.pop(); current !== undefined; current = stack.pop()) {
    const depth = depths.pop() as number;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (child === null || typeof child !== 'object') continue;
      if (depth >= MAX_NESTING) return nestingProblem(body);
      stack.push(child);
      depths.push(depth + 1);
    }
  }
  return undefined;
}

/** Where `body` nests deeper than MAX_NESTING (the slow path of `inspectParsedBody`, with the path). */
function nestingProblem(body: object): FieldProblem | undefined {
  let problem: FieldProblem | undefined;
  walk(body, (child, key, container) => {
    if (container.depth < MAX_NESTING || child === null || typeof child !== 'object') return;
    problem = { field: jsonPathOf(pointerOf(container, key)), message: `is nested deeper than ${MAX_NESTING} levels of objects and arrays` };
    return 'stop';
  });
  return problem;
}

/**
 * Every string (value or object key) in `value` that PostgreSQL cannot store, as validation
 * issues at their JSON pointer.
 */
export function unstorableText(value: unknown): AjvIssue[] {
  const issues: AjvIssue[] = [];
  const issue = (instancePath: string, message: string) => issues.push({ instancePath, keyword: 'text', message, params: {} });
  if (typeof value === 'string' && isUnstorable(value)) issue('', whyUnstorable(value));
  if (value !== null && typeof value === 'object' && storableText.has(value)) return issues;
  walk(value, (child, key, container) => {
    if (typeof key === 'string' && isUnstorable(key)) {
      issue(pointerOf(container, key), `names a key that ${whyUnstorable(key)}`);
      return 'skip';
    }
    if (typeof child === 'string' && isUnstorable(child)) issue(pointerOf(container, key), whyUnstorable(child));
  });
  return issues;
}

/**
 * Path parameters and query strings, checked for unstorable text on every route before anything
 * reads them (the route's own schema may not describe them all). Bodies are checked with their
 * schema, in the validator (validation.ts). A list's `cursor` is checked too, against its
 * signature, on every list registered after this (cursor.ts, which also signs the ones it answers).
 */
export function installInputChecks(app: FastifyInstance): void {
  installCursorSigning(app);
  app.addHook('preValidation', (request, _reply, done) => {
    const problems = [
      ...fieldProblems(unstorableText(request.params), 'params'),
      ...fieldProblems(unstorableText(request.query), 'query'),
    ];
    done(problems.length > 0 ? validationError(problems) : undefined);
  });
}
