import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ERROR_CODES, type ErrorCode } from './errors';

/** A preValidation hook for POSTs that may be sent without a body (complete-picking, dispatch, waves): it reads as `{}`. */
export async function bodyIsOptional(request: { body: unknown }): Promise<void> {
  request.body ??= {};
}

export const RequestId = Type.String({ format: 'uuid', description: 'Identifies this request in the service logs' });

export const ErrorResponse = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.Unsafe<ErrorCode>({ type: 'string', enum: ERROR_CODES, description: 'Each code always comes with the same HTTP status; what each means and whether to retry: docs/errors.md' }),
      message: Type.String(),
      details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
      retryAfter: Type.Optional(Type.Integer({ description: 'Seconds to wait before sending the request again: rate limits, an unavailable database, a concurrent update, an idempotency key still in use' })),
    }),
    requestId: RequestId,
  },
  { $id: 'ErrorResponse', title: 'Error', description: 'The envelope of every error answer' },
);

/** The error responses every authenticated route may give, for the OpenAPI document. */
const commonErrors = {
  400: Type.Ref(ErrorResponse),
  401: Type.Ref(ErrorResponse),
  403: Type.Ref(ErrorResponse),
  429: Type.Ref(ErrorResponse),
  503: Type.Ref(ErrorResponse, { description: 'The database is unreachable or cancelled a statement that took too long; retry after the Retry-After header' }),
};

/** Response schemas of a route: its own success shapes plus the shared error envelope. */
export function responses<R extends Record<number, TSchema>>(own: R, ...extraErrors: number[]) {
  const errors = Object.fromEntries(extraErrors.map((status) => [status, Type.Ref(ErrorResponse)]));
  return { ...commonErrors, ...errors, ...own };
}

/** `{success: true, data, requestId}`, the success envelope. */
export function Success<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data, requestId: RequestId });
}

export const Pagination = Type.Object({
  limit: Type.Integer(),
  hasMore: Type.Boolean(),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `cursor` for the next page, with the same filters; null on the last page. Signed: it holds only for this listing',
  }),
  total: Type.Integer({ description: 'Items matching the filters, across all pages' }),
});

/** `{success, data: [...], pagination, requestId}`, the list envelope. */
export function Page<T extends TSchema>(item: T) {
  return Type.Object({ success: Type.Literal(true), data: Type.Array(item), pagination: Pagination, requestId: RequestId });
}

/** `limit` and `cursor` query parameters with a route's own default and maximum page size. */
export function pageQuery(defaultLimit: number, maxLimit: number) {
  return {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxLimit, default: defaultLimit })),
    cursor: Type.Optional(Type.String({ description: 'The `nextCursor` of the previous page, sent with the same filters' })),
  };
}

export const IsoDateTime = Type.String({ format: 'date-time', description: 'ISO 8601 date and time' });

/**
 * The answer of a partial batch, for `products` and `orders` alike:
 * counters, one error per failed item and the warnings of the items that were saved. An item's
 * `externalId` is echoed as sent; in `errors` it is null when the item had no string externalId.
 */
export function BatchResult(collection: string, codes: string) {
  const index = Type.Integer({ minimum: 0, description: `Position of the item in \`${collection}\`` });
  return Type.Object({
    success: Type.Literal(true),
    data: Type.Object({
      successCount: Type.Integer({ description: 'Items saved (created or updated)' }),
      createdCount: Type.Integer(),
      updatedCount: Type.Integer(),
      errorCount: Type.Integer({ description: 'Items refused; each has an entry in `errors`' }),
    }),
    errors: Type.Array(
      Type.Object({
        index,
        externalId: Type.Union([Type.String(), Type.Null()], { description: "The item's externalId; null when it had none (or not a string)" }),
        code: Type.String({ description: codes }),
        error: Type.String(),
        details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
      }),
      { description: 'In index order' },
    ),
    warnings: Type.Array(Type.Object({ index, externalId: Type.String(), warning: Type.String() }), {
      description: 'About items that were saved, in index order',
    }),
    requestId: RequestId,
  });
}
export type BatchResult = Static<ReturnType<typeof BatchResult>>;
export type BatchItemError = BatchResult['errors'][number];
export type BatchItemWarning = BatchResult['warnings'][number];
