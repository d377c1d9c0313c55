import { Type, type TSchema } from '@sinclair/typebox';

export const RequestId = Type.String({ format: 'uuid', description: 'Identifies this request in the service logs' });

export const ErrorResponse = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
      retryAfter: Type.Optional(Type.Integer({ description: 'Seconds to wait; rate limit errors only' })),
    }),
    requestId: RequestId,
  },
  { $id: 'ErrorResponse', title: 'Error' },
);

/** The error responses every authenticated route may give, for the OpenAPI document. */
const commonErrors = {
  400: Type.Ref(ErrorResponse),
  401: Type.Ref(ErrorResponse),
  403: Type.Ref(ErrorResponse),
  429: Type.Ref(ErrorResponse),
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
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page' }),
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
    cursor: Type.Optional(Type.String({ description: 'The `nextCursor` of the previous page' })),
  };
}

export const IsoDateTime = Type.String({ format: 'date-time', description: 'ISO 8601 date and time' });
