import type { BatchItemError } from './schemas';
import type { FieldProblem } from './errors';

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
