import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { ERROR_STATUS, type ErrorCode } from './errors';
import { isCacheable } from './idempotency';
import { EXAMPLES } from './openapi-examples';

/**
 * What the route schemas cannot say on their own in the OpenAPI document: response descriptions,
 * the headers every answer carries, and examples (openapi-examples.ts, and an error answer for each
 * code). Applied to the generated document as a whole, so that each route states only its own shapes.
 */

type Json = Record<string, unknown>;

interface MediaType {
  schema?: { $ref?: string };
  example?: unknown;
  examples?: Record<string, Json>;
}
interface ResponseObject {
  description?: string;
  headers?: Record<string, Json>;
  content?: Record<string, MediaType>;
}
interface OperationObject {
  operationId?: string;
  tags?: string[];
  requestBody?: { content?: Record<string, MediaType> };
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string }[];
  responses?: Record<string, ResponseObject>;
}

const header = (description: string, schema: Json = { type: 'integer', minimum: 0 }) => ({ description, schema });

const HEADERS = {
  'X-Request-Id': header('Identifies this request in the service logs; the same as `requestId` in the body', { type: 'string', format: 'uuid' }),
  'X-RateLimit-Limit': header('Requests the API key may make per window'),
  'X-RateLimit-Remaining': header('Requests left in the current window'),
  'X-RateLimit-Reset': header('Seconds until the current window ends'),
  'Retry-After': header('Seconds to wait before retrying'),
  'X-Idempotency-Replayed': header('`true` when this is the stored answer to an earlier request with the same X-Idempotency-Key', {
    type: 'string',
    enum: ['true'],
  }),
};

const SUCCESS_DESCRIPTIONS: Record<string, string> = { '200': 'Success', '201': 'Created' };

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is invalid; `details` names each offending field and nothing was changed',
  401: 'The Authorization header is missing, malformed, or holds an unknown, revoked or expired credential',
  403: 'The API key lacks the permission, or the caller address is not on its allow-list',
  404: 'No such resource for this tenant',
  409: 'The request conflicts with the current state; `code` says how. With Retry-After (CONCURRENT_UPDATE, or IDEMPOTENCY_CONFLICT while the first request with the key still runs), sending the same request again after it is safe',
  413: 'The request body or batch is larger than this endpoint accepts',
  429: 'The API key made too many requests in the current window; retry after Retry-After seconds',
  500: 'An unexpected failure; the request id identifies it in the service logs',
  503: 'The database is unreachable or cancelled a statement that took too long; retry after Retry-After seconds',
};

/** Where the console's answers mean something else than the API key's. */
const CONSOLE_ERROR_DESCRIPTIONS: Record<number, string> = {
  401: 'No session, or it ended (expired, signed out, user disabled); on sign-in: wrong warehouse, user or PIN',
  403: "The user's role may not use this route, or a state-changing request lacks the service's own Origin",
  429: 'Too many failed sign-ins for this user or from this address; retry after Retry-After seconds',
};

/** One realistic message per code, for the examples of the error answers. */
const EXAMPLE_MESSAGES: Record<ErrorCode, string> = {
  VALIDATION_ERROR: 'Invalid request: items[0].quantity must be >= 1',
  UNAUTHORIZED: 'Invalid API key',
  FORBIDDEN: 'This API key lacks the orders:write permission',
  IP_NOT_ALLOWED: 'Requests from 203.0.113.7 are not allowed for this API key',
  NOT_FOUND: 'Order ORD-1042 not found',
  CONFLICT: 'Order ORD-1042 is PICKED; it cannot move to IN_PICKING',
  DUPLICATE_SKU: 'sku "MUG-RED-12" already belongs to the product with externalId "P-778"',
  ORDER_IN_PROGRESS: 'Order ORD-1042 is IN_PICKING; the warehouse has it and it can no longer be cancelled',
  NOTHING_TO_PICK: 'No PENDING order without issues is free to pick',
  PICKS_MISSING: '2 line(s) of the wave have no pick recorded',
  IDEMPOTENCY_CONFLICT: 'This X-Idempotency-Key was already used for a different request (method, path or body); use a new key for a new operation',
  CONCURRENT_UPDATE: 'Order ORD-1042 was changed by a concurrent request; retry the request',
  PAYLOAD_TOO_LARGE: 'A batch takes at most 200 products; got 250',
  RATE_LIMIT_EXCEEDED: 'Rate limit of 100 requests per minute exceeded; retry in 42 seconds',
  INTERNAL_ERROR: 'Internal error; the request id identifies it in the service logs',
  SERVICE_UNAVAILABLE: 'The database is unreachable; retry later',
};

const EXAMPLE_REQUEST_ID = '4f9c2b1e-8d3a-4c67-9b2e-1a5f7d3c9e80';

function errorExample(code: ErrorCode): Json {
  const error: Json = { code, message: EXAMPLE_MESSAGES[code] };
  if (code === 'VALIDATION_ERROR') error.details = [{ field: 'items[0].quantity', message: 'must be >= 1' }];
  if (code === 'RATE_LIMIT_EXCEEDED') error.retryAfter = 42;
  if (code === 'SERVICE_UNAVAILABLE') error.retryAfter = 5;
  if (code === 'CONCURRENT_UPDATE') error.retryAfter = 1;
  return { summary: code, value: { success: false, error, requestId: EXAMPLE_REQUEST_ID } };
}

/** The error codes an answer with `status` may carry, from the one table in errors.ts. */
const codesOfStatus = (status: number) => (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => ERROR_STATUS[code] === status);

function finishResponse(status: string, response: ResponseObject, publicApi: boolean, replayable: boolean, consoleApi: boolean): void {
  const code = Number(status);
  if (response.description === 'Default Response' || !response.description) {
    response.description = SUCCESS_DESCRIPTIONS[status] ?? (consoleApi ? CONSOLE_ERROR_DESCRIPTIONS[code] : undefined) ?? ERROR_DESCRIPTIONS[code] ?? 'Answer';
  }
  response.headers = {
    'X-Request-Id': HEADERS['X-Request-Id'],
    ...(publicApi
      ? { 'X-RateLimit-Limit': HEADERS['X-RateLimit-Limit'], 'X-RateLimit-Remaining': HEADERS['X-RateLimit-Remaining'], 'X-RateLimit-Reset': HEADERS['X-RateLimit-Reset'] }
      : {}),
    ...(code === 409 || code === 429 || code === 503 ? { 'Retry-After': HEADERS['Retry-After'] } : {}),
    ...(replayable && isCacheable(code) ? { 'X-Idempotency-Replayed': HEADERS['X-Idempotency-Replayed'] } : {}),
    ...response.headers,
  };
  const media = response.content?.['application/json'];
  const codes = codesOfStatus(code);
  if (media?.schema?.$ref === '#/components/schemas/ErrorResponse' && codes.length > 0 && !media.examples) {
    media.examples = Object.fromEntries(codes.map((errorCode) => [errorCode, errorExample(errorCode)]));
  }
}

/**
 * `transformObject`: completes every operation's responses. An operation is on the public API when
 * it takes the API key (rate limited, so the X-RateLimit headers and 429 apply); the operator and
 * warehouse APIs take the admin token and have no rate limit. A write that takes X-Idempotency-Key
 * may answer with a stored response.
 */
export const finishDocument: NonNullable<FastifyDynamicSwaggerOptions['transformObject']> = (generated) => {
  const document = 'openapiObject' in generated ? generated.openapiObject : generated.swaggerObject;
  const paths = (document.paths ?? {}) as Record<string, Record<string, OperationObject>>;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      if (!operation?.responses) continue;
      const security = operation.security ?? [];
      const publicApi = security.some((requirement) => 'apiKey' in requirement);
      const admin = security.some((requirement) => 'adminToken' in requirement);
      const consoleSession = security.some((requirement) => 'consoleSession' in requirement);
      const replayable = (operation.parameters ?? []).some((p) => p.in === 'header' && p.name === 'x-idempotency-key');
      // Only the console's sign-in has a limit; it takes no session.
      if (admin || consoleSession) delete operation.responses['429'];
      const examples = EXAMPLES[operation.operationId ?? ''];
      const requestMedia = operation.requestBody?.content?.['application/json'];
      if (requestMedia && examples?.request !== undefined) requestMedia.example = examples.request;
      for (const [status, example] of Object.entries(examples?.responses ?? {})) {
        const media = operation.responses[status]?.content?.['application/json'];
        if (media) media.example = example;
      }
      const consoleApi = operation.tags?.includes('console') ?? false;
      for (const [status, response] of Object.entries(operation.responses)) finishResponse(status, response, publicApi, replayable, consoleApi);
    }
  }
  return document;
};

/** Names the shared schemas by their `$id` (ErrorResponse) instead of the generated `def-0`. */
export const refResolver: NonNullable<FastifyDynamicSwaggerOptions['refResolver']> = {
  buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
};

/** The wordmark at the top of the reference pages at /docs, served from here (no outside asset). */
export const PICKPORT_LOGO = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40" viewBox="0 0 160 40">' +
    '<rect x="2" y="6" width="28" height="28" rx="6" fill="#1f6feb"/>' +
    '<path d="M11 27V13h7a4.5 4.5 0 0 1 0 9h-7" fill="none" stroke="#fff" stroke-width="3"/>' +
    '<text x="38" y="28" font-family="Helvetica, Arial, sans-serif" font-size="22" font-weight="700" fill="#fff">Pickport</text>' +
    '</svg>',
);
