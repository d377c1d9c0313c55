import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Every error code the API sends, with the HTTP status it always comes with: routes name a code
 * and the status follows, and the OpenAPI document lists the same codes.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  IP_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  DUPLICATE_SKU: 409,
  ORDER_IN_PROGRESS: 409,
  NOTHING_TO_PICK: 409,
  PICKS_MISSING: 409,
  IDEMPOTENCY_CONFLICT: 409,
  /** A concurrent request changed the rows this write needed; sending it again is safe (Retry-After). */
  CONCURRENT_UPDATE: 409,
  PAYLOAD_TOO_LARGE: 413,
  /** Over a key's or an address's request limits, or too many failed console sign-ins. */
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface FieldProblem {
  /** JSON path of the offending field, such as `items[2].quantity`. */
  field: string;
  message: string;
}

/** An error the client caused or must know about; rendered in the spec's envelope. */
export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldProblem[],
    readonly retryAfter?: number,
  ) {
    super(message);
    this.statusCode = ERROR_STATUS[code];
  }
}

export const validationError = (details: FieldProblem[]) =>
  new ApiError('VALIDATION_ERROR', describeProblems(details), details);
export const notFound = (what: string) => new ApiError('NOT_FOUND', `${what} not found`);
export const conflict = (message: string) => new ApiError('CONFLICT', message);
/** Seconds a client is told to wait before sending a write that lost a race again. */
export const CONCURRENT_UPDATE_RETRY_AFTER_SECONDS = 1;
/** A write that lost a race with a concurrent request: nothing was written, and the same request may be sent again. */
export const concurrentUpdate = (message: string) => new ApiError('CONCURRENT_UPDATE', message, undefined, CONCURRENT_UPDATE_RETRY_AFTER_SECONDS);

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
  schemaPath?: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** The schema that failed (Ajv's `verbose`), for its PATTERN_RULE. */
  parentSchema?: Record<string, unknown>;
}

/**
 * A schema keyword saying, as "must …", what a string of its `pattern` is: Ajv would only quote the
 * regular expression.
 */
export const PATTERN_RULE = 'x-pattern-rule';

/** What the date formats (validation.ts) accept, said where Ajv would only name the format. */
const FORMAT_MESSAGES: Record<string, string> = {
  'date-time': 'must be an ISO 8601 date-time with seconds and an offset (Z or ±hh:mm up to ±15:59), in years 1000 to 9999',
  'iso-8601': 'must be an ISO 8601 date or date-time (offset up to ±15:59), in years 1000 to 9999',
};

const oneOf = (values: unknown[]) => `must be one of ${values.map(String).join(', ')}`;

/**
 * A union of constants (TypeBox's union of literals) fails as one `const` issue per value and then
 * the `anyOf`: these say it as one "must be one of …" on the `anyOf`, its branches left out.
 */
function unionsOfConstants(issues: AjvIssue[]): { messages: Map<AjvIssue, string>; branches: Set<AjvIssue> } {
  const messages = new Map<AjvIssue, string>();
  const branches = new Set<AjvIssue>();
  for (const union of issues.filter((issue) => issue.keyword === 'anyOf' && issue.schemaPath)) {
    const inside = issues.filter((i) => i.instancePath === union.instancePath && i.schemaPath?.startsWith(`${union.schemaPath}/`));
    if (inside.length === 0 || inside.some((i) => i.keyword !== 'const')) continue;
    messages.set(union, oneOf(inside.map((i) => i.params.allowedValue)));
    for (const branch of inside) branches.add(branch);
  }
  return { messages, branches };
}

function messageOf(issue: AjvIssue): string {
  switch (issue.keyword) {
    case 'format':
      return FORMAT_MESSAGES[String(issue.params.format)] ?? issue.message ?? 'is invalid';
    case 'enum':
      return oneOf(issue.params.allowedValues as unknown[]);
    case 'const':
      return `must be ${String(issue.params.allowedValue)}`;
    case 'pattern': {
      const rule = issue.parentSchema?.[PATTERN_RULE];
      return typeof rule === 'string' ? rule : (issue.message ?? 'is invalid');
    }
    default:
      return issue.message ?? 'is invalid';
  }
}

export function fieldProblems(issues: AjvIssue[], context: string | undefined): FieldProblem[] {
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  const unions = unionsOfConstants(issues);
  for (const issue of issues) {
    if (unions.branches.has(issue)) continue;
    const missing = issue.keyword === 'required' ? String(issue.params.missingProperty) : undefined;
    // A schema closed to other fields names the one it does not know.
    const unknown = issue.keyword === 'additionalProperties' ? String(issue.params.additionalProperty) : undefined;
    const field = jsonPathOf(issue.instancePath, missing ?? unknown) || context || 'body';
    const message = missing ? 'is required' : unknown ? 'is not a known field' : (unions.messages.get(issue) ?? messageOf(issue));
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

/** Seconds a client is told to wait before retrying while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Seconds a client is told to wait after a statement ran past the database's `statement_timeout`. */
export const STATEMENT_TIMEOUT_RETRY_AFTER_SECONDS = 5;

/**
 * SQLSTATE 57014 (query_canceled): `statement_timeout` cut a statement short, or an operator
 * cancelled it (pg_cancel_backend). Its transaction rolled back; the database is busy, not broken.
 */
export const isStatementCancelled = (error: unknown): boolean => (error as { code?: unknown } | undefined)?.code === '57014';

/** Node's socket errors on the way to the database. */
const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);
/**
 * Errors that carry no code: pg's pool and client when they cannot reach or keep the server, and
 * the embedded database once closed (PGlite's own message, and our dialect's).
 */
const CONNECTION_ERROR_MESSAGES =
  /timeout exceeded when trying to connect|connection terminated|Connection timeout|Client has encountered a connection error|PGlite is closed|embedded database is closed/i;

/**
 * Whether the database could not be reached or dropped the connection: SQLSTATE class 08
 * (connection exception), 57P01–57P03 (the server is shutting down or cannot take connections),
 * socket errors, pool and connect timeouts. A retry later may succeed.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (code.startsWith('08') || ['57P01', '57P02', '57P03'].includes(code) || CONNECTION_ERROR_CODES.has(code))) {
    return true;
  }
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  return typeof message === 'string' && CONNECTION_ERROR_MESSAGES.test(message);
}

/**
 * A value PostgreSQL refused as data (SQLSTATE class 22, data exception; 54001, a value nested too
 * deep): the request's input, which validation should have refused first and names better. Only
 * for a whole request: inside a transaction such an error aborts it, so a batch cannot count it
 * as one item's failure.
 */
export function refusedByDatabase(error: unknown): ApiError | undefined {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  if (typeof code !== 'string' || typeof severity !== 'string' || !(code.startsWith('22') || code === '54001')) return undefined;
  return validationError([{ field: 'request', message: 'holds a value the database cannot store' }]);
}

/** Translates framework and unexpected errors into the client-facing ApiError. */
export function toApiError(error: FastifyError | ApiError | Error): ApiError {
  if (error instanceof ApiError) return error;
  if (isDatabaseUnavailable(error)) {
    return new ApiError('SERVICE_UNAVAILABLE', 'The database is unreachable; retry later', undefined, DATABASE_RETRY_AFTER_SECONDS);
  }
  if (isStatementCancelled(error)) {
    return new ApiError('SERVICE_UNAVAILABLE', 'The database took too long to answer; retry later', undefined, STATEMENT_TIMEOUT_RETRY_AFTER_SECONDS);
  }
  const fastifyError = error as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
  if (fastifyError.validation) {
    return validationError(fieldProblems(fastifyError.validation, fastifyError.validationContext));
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', 'Request body is larger than this endpoint accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return validationError([{ field: 'Content-Type', message: 'must be application/json' }]);
    case 'FST_ERR_BAD_URL':
      return validationError([{ field: 'path', message: 'must be valid percent-encoded UTF-8' }]);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return validationError([{ field: 'path', message: `has a segment longer than ${MAX_PATH_SEGMENT} characters` }]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return validationError([{ field: 'body', message: 'must be well-formed JSON' }]);
  }
  if (error instanceof SyntaxError) {
    return validationError([{ field: 'body', message: 'must be well-formed JSON' }]);
  }
  const status = fastifyError.statusCode ?? 500;
  if (status === 413) {
    return new ApiError('PAYLOAD_TOO_LARGE', 'Request body is larger than this endpoint accepts');
  }
  if (status === 415) {
    return validationError([{ field: 'Content-Type', message: 'must be application/json' }]);
  }
  if (status >= 400 && status < 500) {
    return validationError([{ field: 'request', message: fastifyError.message }]);
  }
  return new ApiError('INTERNAL_ERROR', 'Internal error; the request id identifies it in the service logs');
}

/**
 * The longest path parameter the router takes (Fastify's `maxParamLength`, counted decoded), well
 * past any route's own limit, so that the route's schema answers an overlong one naming it.
 */
export const MAX_PATH_SEGMENT = 1000;

/** Sends `error` in the envelope, logging what the client cannot have caused. */
function sendError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const refused = refusedByDatabase(error);
  const apiError = refused ?? toApiError(error);
  if (refused) request.log.warn({ err: error }, 'the database refused a value validation let through');
  else if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
  if (apiError.retryAfter !== undefined) reply.header('retry-after', String(apiError.retryAfter));
  return reply.header('x-request-id', request.id).status(apiError.statusCode).send(errorBody(request.id, apiError));
}

/**
 * Fastify's `frameworkErrors` option: errors the router raises before any route or hook runs
 * (a path that is not valid percent-encoding, a segment over MAX_PATH_SEGMENT), in the envelope.
 */
export const frameworkErrors = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => sendError(error, request, reply);

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(sendError);
  app.setNotFoundHandler((request, reply) => {
    const apiError = notFound(`Route ${request.method} ${request.url.split('?')[0]}`);
    return reply.status(404).send(errorBody(request.id, apiError));
  });
}
