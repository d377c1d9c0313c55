import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'IP_NOT_ALLOWED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'DUPLICATE_SKU'
  | 'ORDER_IN_PROGRESS'
  | 'NOTHING_TO_PICK'
  | 'PICKS_MISSING'
  | 'IDEMPOTENCY_CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'RATE_LIMIT_EXCEEDED'
  | 'METHOD_NOT_ALLOWED'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE';

export interface FieldProblem {
  /** JSON path of the offending field, such as `items[2].quantity`. */
  field: string;
  message: string;
}

/** An error the client caused or must know about; rendered in the spec's envelope. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldProblem[],
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

export const validationError = (details: FieldProblem[]) =>
  new ApiError(400, 'VALIDATION_ERROR', describeProblems(details), details);
export const notFound = (what: string) => new ApiError(404, 'NOT_FOUND', `${what} not found`);
export const conflict = (message: string) => new ApiError(409, 'CONFLICT', message);

function describeProblems(details: FieldProblem[]): string {
  const [first] = details;
  if (!first) return 'Invalid request';
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  return `Invalid request: ${first.field} ${first.message}${more}`;
}

/** `/items/2/quantity` plus a missing `sku` becomes `items[2].quantity` / `sku`. */
export function jsonPathOf(instancePath: string, missingProperty?: string): string {
  const segments = instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (missingProperty) segments.push(missingProperty);
  return segments.reduce((path, segment) => {
    if (/^\d+$/.test(segment)) return `${path}[${segment}]`;
    return path ? `${path}.${segment}` : segment;
  }, '');
}

export interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

export function fieldProblems(issues: AjvIssue[], context: string | undefined): FieldProblem[] {
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  for (const issue of issues) {
    const missing = issue.keyword === 'required' ? String(issue.params.missingProperty) : undefined;
    const field = jsonPathOf(issue.instancePath, missing) || context || 'body';
    const message = missing ? 'is required' : (issue.message ?? 'is invalid');
    const key = `${field}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ field, message });
  }
  return problems;
}

interface ErrorBody {
  success: false;
  error: { code: ErrorCode; message: string; details?: FieldProblem[]; retryAfter?: number };
  requestId: string;
}

export function errorBody(requestId: string, error: ApiError): ErrorBody {
  return {
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    },
    requestId,
  };
}

/** Translates framework and unexpected errors into the client-facing ApiError. */
export function toApiError(error: FastifyError | ApiError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
  if (fastifyError.validation) {
    return validationError(fieldProblems(fastifyError.validation, fastifyError.validationContext));
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body is larger than this endpoint accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return validationError([{ field: 'Content-Type', message: 'must be application/json' }]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return validationError([{ field: 'body', message: 'must be well-formed JSON' }]);
  }
  if (error instanceof SyntaxError) {
    return validationError([{ field: 'body', message: 'must be well-formed JSON' }]);
  }
  const status = fastifyError.statusCode ?? 500;
  if (status === 413) {
    return new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body is larger than this endpoint accepts');
  }
  if (status === 415) {
    return validationError([{ field: 'Content-Type', message: 'must be application/json' }]);
  }
  if (status >= 400 && status < 500) {
    return validationError([{ field: 'request', message: fastifyError.message }]);
  }
  return new ApiError(500, 'INTERNAL_ERROR', 'Internal error; the request id identifies it in the service logs');
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    if (apiError.retryAfter !== undefined) reply.header('retry-after', String(apiError.retryAfter));
    return reply.status(apiError.statusCode).send(errorBody(request.id, apiError));
  });
  app.setNotFoundHandler((request, reply) => {
    const apiError = notFound(`Route ${request.method} ${request.url.split('?')[0]}`);
    return reply.status(404).send(errorBody(request.id, apiError));
  });
}
