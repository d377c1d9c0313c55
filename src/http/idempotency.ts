import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { sql, type CompiledQuery, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Db } from '../db';
import type { Database } from '../db/schema';
import { isUniqueViolation } from '../db/errors';
import { prepared } from '../db/prepared';
import { open, seal } from '../security/secret-box';
import type { ApiKeyContext } from './auth';
import { ApiError, errorBody, validationError } from './errors';
import type { Clock } from './rate-limit';
import { UUID_V4 } from './uuid';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;
/**
 * A request holds its key on its instance from arrival until its answer is stored. Should a request
 * never reach that point (it always does, even when its client went away), this frees the key.
 */
const IN_FLIGHT_BOUND_MS = 2 * 60_000;
/**
 * How long storing an answer waits for another instance's transaction that is storing one for the
 * same key; past it, the request answers 409 "still being processed" and rolls back.
 */
const CONCURRENT_ANSWER_WAIT = '100ms';
/** Expired keys are purged by the writes themselves, at most this often per instance. */
const PURGE_INTERVAL_MS = 60_000;
const PURGE_BATCH = 1000;

const HEADER = 'x-idempotency-key';
const WRITE_METHODS = new Set(['POST', 'PATCH', 'DELETE']);
/** Headers that describe this delivery of a response rather than the response itself. */
const UNSTORED_HEADERS = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'x-request-id', 'retry-after']);

/** A write that carries a valid X-Idempotency-Key. */
export interface IdempotentRequest {
  tenantId: string;
  apiKeyId: string;
  key: string;
  fingerprint: string;
  requestId: string;
  /** When it arrived, by the idempotency clock: answers stored before `arrivedAt - TTL` have expired. */
  arrivedAt: number;
  /** The answer is stored (with the write, or after it) or is not to be: nothing is left to do. */
  settled: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: IdempotentRequest | null;
  }
  interface FastifyContextConfig {
    /**
     * The route does work before its transaction (an outbound call): a stored answer is looked for
     * before the handler runs, not only when the transaction begins.
     */
    idempotencyLookupFirst?: boolean;
  }
}

export interface StoredAnswer {
  fingerprint: string;
  status_code: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Stored bodies are encrypted at rest (they may carry secrets, such as the 201 of `POST /webhooks`),
 * bound to their row's key so that a body copied onto another key does not decrypt.
 */
const boundTo = (request: Pick<IdempotentRequest, 'tenantId' | 'apiKeyId' | 'key'>) =>
  `idempotency/${request.tenantId}/${request.apiKeyId}/${request.key}`;

/**
 * 2xx and the 4xx a retry would get again; never 401, 403 or 429, nor an answer naming a
 * Retry-After (a race lost to a concurrent request), which depend on the moment.
 */
export const isCacheable = (status: number, retryAfter?: unknown) =>
  retryAfter === undefined && ((status >= 200 && status < 300) || (status >= 400 && status < 500 && ![401, 403, 429].includes(status)));

/** JSON with sorted keys, so that the same body sent with its fields in another order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? '';
}

/** Method, path (with its query) and body: what makes two requests the same operation. */
function fingerprintOf(request: FastifyRequest): string {
  return createHash('sha256').update(`${request.method} ${request.url}\n${canonicalJson(request.body)}`).digest('hex');
}

function storedHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value === undefined || UNSTORED_HEADERS.has(name) || name.startsWith('x-ratelimit-')) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

/** With `Retry-After: 1`, which tells a client this conflict passes (a reused key's never does). */
export const stillRunning = () =>
  new ApiError('IDEMPOTENCY_CONFLICT', 'A request with this X-Idempotency-Key is still being processed; retry once it has completed', undefined, 1);
const usedForAnotherRequest = () =>
  new ApiError('IDEMPOTENCY_CONFLICT', 'This X-Idempotency-Key was already used for a different request (method, path or body); use a new key for a new operation');

export interface IdempotencyOptions {
  clock?: Clock;
}

/**
 * `X-Idempotency-Key` on the public writes (docs/limits.md). No row is
 * written before the answer: a key is held on its instance while its request runs, and the answer
 * is stored by the write transaction's commit (`respondWithWrite`), or, for an answer given outside
 * one, when it is sent. The table's primary key finds a retry out (its answer fails to store, and
 * the stored one is sent) and settles a race between instances: of two answers for one key, one commits.
 */
export function installIdempotency(scope: FastifyInstance, options: IdempotencyOptions = {}): void {
  const clock = options.clock ?? Date.now;
  const db = scope.db;
  const { secretKey } = scope.config;
  /** Keys of the requests running on this instance, with their arrival time. */
  const inFlight = new Map<string, number>();
  const slotOf = (request: IdempotentRequest) => `${request.apiKeyId}/${request.key}`;
  let lastPurge = -Infinity;

  scope.decorateRequest('idempotency', null);
  scope.addHook('onRoute', documentHeader);

  // Callbacks rather than async functions where a request without the header has nothing to do:
  // that one, the common one, then costs no promise.
  scope.addHook('preValidation', (request, reply, done) => {
    const header = request.headers[HEADER];
    const { apiKey } = request;
    if (header === undefined || !WRITE_METHODS.has(request.method) || !apiKey) return done();
    holdKey(request, reply, apiKey, header).then(() => done(), done);
  });

  /** Holds the request's key on this instance (or answers it: 409 while it runs, its stored answer). */
  const holdKey = async (request: FastifyRequest, reply: FastifyReply, apiKey: ApiKeyContext, header: string | string[]) => {
    if (typeof header !== 'string' || !UUID_V4.test(header)) {
      throw validationError([{ field: 'X-Idempotency-Key', message: 'must be a UUID v4' }]);
    }
    const now = clock();
    if (now - lastPurge >= PURGE_INTERVAL_MS) {
      lastPurge = now;
      await purgeExpiredIdempotencyKeys(db, new Date(now)).catch((err: unknown) => request.log.warn({ err }, 'purging idempotency keys failed'));
    }
    const idempotent: IdempotentRequest = {
      tenantId: apiKey.tenantId,
      apiKeyId: apiKey.id,
      key: header.toLowerCase(),
      fingerprint: fingerprintOf(request),
      requestId: request.id,
      arrivedAt: now,
      settled: false,
    };
    const slot = slotOf(idempotent);
    const holder = inFlight.get(slot);
    if (holder !== undefined && now - holder < IN_FLIGHT_BOUND_MS) throw stillRunning();
    if (request.routeOptions.config.idempotencyLookupFirst) {
      const stored = await db.executeQuery<StoredAnswer>(storedAnswerQuery(db, idempotent));
      if (stored.rows[0]) return reply.send(replay(reply, idempotent, stored.rows[0], secretKey));
    }
    inFlight.set(slot, now);
    request.idempotency = idempotent;
  };

  scope.addHook('onSend', (request, reply, payload, done) => {
    const idempotent = request.idempotency;
    if (!idempotent || idempotent.settled) return done(null, payload);
    storeAnswer(request, reply, idempotent, payload).then((sent) => done(null, sent), done);
  });

  /** Stores an answer given outside a write's transaction; returns the payload to send (a stored one, when another request stored it first). */
  const storeAnswer = async (request: FastifyRequest, reply: FastifyReply, idempotent: IdempotentRequest, payload: unknown): Promise<unknown> => {
    idempotent.settled = true;
    try {
      if (!isCacheable(reply.statusCode, reply.getHeader('retry-after')) || typeof payload !== 'string') return payload;
      // An answer given outside a write's transaction (a validation error, a 4xx that rolled the
      // write back): stored now, unless another request with the key stored one first.
      for (let attempt = 1; attempt <= 2; attempt++) {
        try {
          await db.executeQuery(answerInsert(db, idempotent, reply, payload, secretKey));
          return payload;
        } catch (error) {
          if (!isUniqueViolation(error, 'idempotency_keys_pkey')) throw error;
        }
        const answer = await answerOfTakenKey(db, idempotent);
        if (answer) return replay(reply, idempotent, answer, secretKey);
      }
      return payload;
    } catch (err) {
      request.log.error({ err }, 'storing or replaying the answer of an idempotent request failed; its own answer is sent');
      return payload;
    } finally {
      inFlight.delete(slotOf(idempotent));
    }
  };

  // The answer was stored by its write's commit (onSend had nothing to do), or the client went away.
  scope.addHook('onResponse', (request, _reply, done) => {
    if (request.idempotency) inFlight.delete(slotOf(request.idempotency));
    done();
  });
}

type KeyRowFilter = (eb: ExpressionBuilder<Database, 'idempotency_keys'>) => Expression<SqlBool>;

/** The row of the request's key, whoever stored it. */
const keyRow =
  (request: IdempotentRequest): KeyRowFilter =>
  (eb) =>
    eb.and([eb('tenant_id', '=', request.tenantId), eb('api_key_id', '=', request.apiKeyId), eb('idempotency_key', '=', request.key)]);

/** The answer stored under the request's key, if one is stored and has not expired (a template: it is built for every keyed write). */
export function storedAnswerQuery(db: Db, request: IdempotentRequest): CompiledQuery<StoredAnswer> {
  return sql<StoredAnswer>`
    SELECT fingerprint, status_code, headers, body FROM idempotency_keys
    WHERE tenant_id = ${request.tenantId} AND api_key_id = ${request.apiKeyId} AND idempotency_key = ${request.key}
      AND expires_at > ${new Date(request.arrivedAt)}`.compile(db);
}

/**
 * Stores the answer under the request's key, body encrypted, for 24 hours from the request's
 * arrival. Fails on the primary key when a row holds the key (see `answerOfTakenKey`); waits at most
 * `CONCURRENT_ANSWER_WAIT` for another transaction storing an answer for the same key (then fails
 * with lock_not_available: that request is still running). The wait is set by the statement
 * itself, for the rest of its transaction, so the statement can ride with a COMMIT.
 */
export function answerInsert(db: Db, request: IdempotentRequest, reply: FastifyReply, body: string, secretKey: Buffer): CompiledQuery {
  return prepared('pickport_store_idempotent_answer', sql`
    INSERT INTO idempotency_keys (tenant_id, api_key_id, idempotency_key, fingerprint, request_id, status_code, headers, body, expires_at)
    SELECT ${request.tenantId}, ${request.apiKeyId}, ${request.key}, ${request.fingerprint}, ${request.requestId}, ${reply.statusCode},
      ${JSON.stringify(storedHeaders(reply))}, ${seal(secretKey, body, boundTo(request))}, ${new Date(request.arrivedAt + IDEMPOTENCY_TTL_MS)}
    FROM (SELECT set_config('lock_timeout', ${CONCURRENT_ANSWER_WAIT}, true)) AS bounded_wait`).compile(db);
}

/**
 * After an answer failed to store because a row holds the key: the live answer there, if any.
 * A row past its 24 hours (not purged yet) is deleted instead, so that the request can run again.
 */
export async function answerOfTakenKey(db: Db, request: IdempotentRequest): Promise<StoredAnswer | undefined> {
  const live = (await db.executeQuery(storedAnswerQuery(db, request))).rows[0];
  if (live) return live;
  await db.deleteFrom('idempotency_keys').where(keyRow(request)).where('expires_at', '<=', new Date(request.arrivedAt)).execute();
  return undefined;
}

/**
 * Makes the stored answer this request's: its status, headers and very body, marked
 * `X-Idempotency-Replayed`; or 409 when the key was used for a different request. Returns the
 * payload to send.
 */
export function replay(reply: FastifyReply, request: IdempotentRequest, stored: StoredAnswer, secretKey: Buffer): string {
  request.settled = true;
  if (stored.fingerprint !== request.fingerprint) {
    const error = usedForAnotherRequest();
    reply.code(error.statusCode).type('application/json; charset=utf-8');
    return JSON.stringify(errorBody(request.requestId, error));
  }
  let body: string;
  try {
    body = open(secretKey, stored.body, boundTo(request));
  } catch (cause) {
    // Never run the write again: its first answer exists but cannot be read (another secret key?).
    throw new Error('the stored answer of this X-Idempotency-Key cannot be decrypted', { cause });
  }
  reply.code(stored.status_code).headers(stored.headers).header('x-idempotency-replayed', 'true');
  return body;
}

/** Deletes up to a batch of keys past their 24 hours; returns how many. */
export async function purgeExpiredIdempotencyKeys(db: Db, now: Date): Promise<number> {
  const result = await sql`
    DELETE FROM idempotency_keys WHERE ctid IN (
      SELECT ctid FROM idempotency_keys WHERE expires_at <= ${now} LIMIT ${PURGE_BATCH}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** Adds the optional header to the OpenAPI description of the public writes. */
function documentHeader(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!route.config?.permission || !methods.some((m) => WRITE_METHODS.has(m))) return;
  const schema = (route.schema ??= {}) as { headers?: { type?: string; properties?: Record<string, unknown> } };
  schema.headers ??= { type: 'object', properties: {} };
  schema.headers.properties ??= {};
  schema.headers.properties[HEADER] = {
    type: 'string',
    pattern: UUID_V4.source,
    description: 'A UUID v4 per logical operation: a retry with the same key and request gets the stored answer for 24 hours',
  };
}
