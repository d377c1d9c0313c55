import type { FastifyRequest } from 'fastify';
import type { BatchItemError } from './schemas';
import { ApiError, fieldProblems, validationError, type AjvIssue, type FieldProblem } from './errors';

/** What an item of a batch failed with: an `ApiError`, or the same fields for a failure decided in place. */
export interface ItemFailure {
  code: string;
  message: string;
  details?: FieldProblem[] | undefined;
}

/**
 * The `errors` entry of a failed batch item (products and orders alike): its index, the externalId
 * it was sent with (null when it had no string externalId), the code and message, and details when
 * there are any.
 */
export function batchItemError(index: number, item: unknown, failure: ItemFailure): BatchItemError {
  const externalId = (item as { externalId?: unknown } | null)?.externalId;
  return {
    index,
    externalId: typeof externalId === 'string' ? externalId : null,
    code: failure.code,
    error: failure.message,
    ...(failure.details ? { details: failure.details } : {}),
  };
}

/**
 * A batch route's `preValidation`: more than `max` items is a 413 before anything is validated or
 * stored, so an oversized batch costs no validation of its items.
 */
export function atMostItems(key: string, max: number) {
  return async (request: FastifyRequest) => {
    const items = (request.body as Record<string, unknown> | undefined)?.[key];
    if (Array.isArray(items) && items.length > max) {
      throw new ApiError('PAYLOAD_TOO_LARGE', `A batch takes at most ${max} ${key}; got ${items.length}`);
    }
  };
}

/** A batch body once the request itself is known to be well formed: its items, and the problems of each. */
export interface BatchItems {
  items: unknown[];
  /** The problems found inside each item that has any, by index. */
  invalid: Map<number, FieldProblem[]>;
}

/**
 * The items of a batch validated with `attachValidation`, and the problems of each: a problem
 * inside `<key>[i]` fails that item only; anything else (a body that is no object, no `<key>`
 * array) fails the request, before the route can read the body. `fields` says how the items'
 * fields are named: as paths of the whole body (`products[1].stock`), or as the item would be
 * answered had it been sent on its own (`items[0].quantity`).
 */
export function batchItems(request: FastifyRequest, key: string, fields: 'in-body' | 'in-item'): BatchItems {
  const itemPath = new RegExp(`^/${key}/(\\d+)(?=/|$)`);
  const issuesByItem = new Map<number, AjvIssue[]>();
  const requestIssues: AjvIssue[] = [];
  for (const issue of (request.validationError as { validation?: AjvIssue[] } | undefined)?.validation ?? []) {
    const match = itemPath.exec(issue.instancePath);
    if (!match) {
      requestIssues.push(issue);
      continue;
    }
    const index = Number(match[1]);
    const named = fields === 'in-item' ? { ...issue, instancePath: issue.instancePath.slice(match[0].length) } : issue;
    issuesByItem.set(index, [...(issuesByItem.get(index) ?? []), named]);
  }
  if (requestIssues.length > 0) throw validationError(fieldProblems(requestIssues, 'body'));
  // Validation found no problem outside the items: the body is an object holding the array.
  const items = (request.body as Record<string, unknown[]>)[key] as unknown[];
  const invalid = new Map([...issuesByItem].map(([index, issues]) => [index, fieldProblems(issues, fields === 'in-item' ? 'body' : undefined)]));
  return { items, invalid };
}
