import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Db, Tx } from '../db';
import type { Database } from '../db/schema';
import { open, seal } from '../security/secret-box';
import { ApiError, validationError } from './errors';
import type { Clock } from './rate-limit';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;
/**
 * How long a reservation blocks its key. A process that dies mid-request leaves an in_progress row;
 * after the lease a retry takes it over. A request still running past its lease loses its write:
 * storing its answer finds the reservation gone and rolls the transaction back.
 */
export const RESERVATION_LEASE_MS = 2 * 60_000;
/** Expired keys are purged by the writes themselves, at most this often per instance. */
const PURGE_INTERVAL_MS = 60_000;
const PURGE_BATCH = 1000;

const HEADER = 'x-idempotency-key';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const WRITE_METHODS = new Set(['POST', 'PATCH', 'DELETE']);
/** Headers that describe this delivery of a response rather than the response itself. */
const UNSTORED_HEADERS = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'x-request-id', 'retry-after']);

/** The key a request holds, from its reservation until its answer is stored or the key released. */
interface Reservation {
  tenantId: string;
  apiKeyId: string;
  key: string;
  requestId: string;
  /** The answer is stored (with the write) or the key released; nothing is left to do. */
  settled: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: Reservation | null;
  }
}

interface ExistingKey {
  fingerprint: string;
  state: 'in_progress' | 'done';
  locked_until: Date;
  expires_at: Date;
  status_code: number | null;
  headers: Record<string, string> | null;
  body: string | null;
}

/**
 * Stored bodies are encrypted at rest (they may carry secrets, such as the 201 of `POST /webhooks`),
 * bound to their row's key so that a body copied onto another key does not decrypt.
 */
const boundTo = (reservation: Pick<Reservation, 'tenantId' | 'apiKeyId' | 'key'>) =>
  `idempotency/${reservation.tenantId}/${reservation.apiKeyId}/${reservation.key}`;

function openStoredBody(secretKey: Buffer, reservation: Reservation, body: string): string {
  try {
    return open(secretKey, body, boundTo(reservation));
  } catch (cause) {
    // Never run the write again: its first answer exists but cannot be read (another secret key?).
    throw new Error('the stored answer of this X-Idempotency-Key cannot be decrypted', { cause });
  }
}

/** 2xx and the 4xx a retry would get again; never 401, 403 or 429, which depend on the moment (DESIGN.md §3). */
const isCacheable = (status: number) => (status >= 200 && status < 300) || (status >= 400 && status < 500 && ![401, 403, 429].includes(status));

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

export interface IdempotencyOptions {
  clock?: Clock;
}

/**
 * `X-Idempotency-Key` on the public writes (spec §8, DESIGN.md §3). A request with a key reserves
 * it before validation (so that a 400 is remembered too); `respondWithWrite` stores the answer in
 * the write's own transaction; any other answer is stored or the key released when it is sent.
 */
export function installIdempotency(scope: FastifyInstance, options: IdempotencyOptions = {}): void {
  const clock = options.clock ?? Date.now;
  const db = scope.db;
  const { secretKey } = scope.config;
  let lastPurge = -Infinity;

  scope.decorateRequest('idempotency', null);
  scope.addHook('onRoute', documentHeader);

  scope.addHook('preValidation', async (request, reply) => {
    const header = request.headers[HEADER];
    if (header === undefined || !WRITE_METHODS.has(request.method) || !request.apiKey) return;
    if (typeof header !== 'string' || !UUID_V4.test(header)) {
      throw validationError([{ field: 'X-Idempotency-Key', message: 'must be a UUID v4' }]);
    }
    const now = clock();
    if (now - lastPurge >= PURGE_INTERVAL_MS) {
      lastPurge = now;
      await purgeExpiredIdempotencyKeys(db, new Date(now)).catch((err: unknown) => request.log.warn({ err }, 'purging idempotency keys failed'));
    }
    const reservation: Reservation = {
      tenantId: request.apiKey.tenantId,
      apiKeyId: request.apiKey.id,
      key: header.toLowerCase(),
      requestId: request.id,
      settled: false,
    };
    const existing = await reserve(db, reservation, fingerprintOf(request), now);
    if (!existing) {
      request.idempotency = reservation;
      return;
    }
    if (existing.state === 'in_progress') {
      throw new ApiError(409, 'IDEMPOTENCY_CONFLICT', 'A request with this X-Idempotency-Key is still being processed; retry once it has completed');
    }
    const body = existing.body === null ? null : openStoredBody(secretKey, reservation, existing.body);
    reply.code(existing.status_code!).headers(existing.headers ?? {}).header('x-idempotency-replayed', 'true');
    return reply.send(body);
  });

  scope.addHook('onSend', async (request, reply, payload) => {
    const reservation = request.idempotency;
    if (!reservation || reservation.settled) return payload;
    reservation.settled = true;
    try {
      if (isCacheable(reply.statusCode) && typeof payload === 'string') {
        await storeResponse(db, secretKey, reservation, reply, payload);
      } else {
        await releaseReservation(db, reservation);
      }
    } catch (err) {
      request.log.error({ err }, 'settling an idempotency key failed; it frees itself when its lease ends');
    }
    return payload;
  });
}

/**
 * Takes the key for this request, or reports the row that holds it. The insert waits only for a
 * holder that is committing (a reservation commits at once; an answer is stored just before its
 * write commits), so a request still running is seen as `in_progress`, never waited for. An expired row (24 h) or a lapsed lease is taken over.
 * Resolves to undefined once the key is ours. Throws 409 when the key belongs to a different request.
 *
 * The reservation commits with `synchronous_commit` off (for its own transaction only, set by the
 * statement itself): it is visible to other requests as soon as it returns, but its commit does
 * not wait for a WAL flush. That is safe: the write it guards commits later, and a commit flushes
 * the WAL up to its own record, so the reservation is durable before any write that depends on it.
 * A crash can only lose the reservation of a request that had not committed anything.
 */
async function reserve(db: Db, reservation: Reservation, fingerprint: string, now: number): Promise<ExistingKey | undefined> {
  const lockedUntil = new Date(now + RESERVATION_LEASE_MS);
  const expiresAt = new Date(now + IDEMPOTENCY_TTL_MS);
  for (let attempt = 0; attempt < 3; attempt++) {
    // Selecting from set_config makes it run before the insert, in the insert's own transaction.
    const inserted = await sql<{ reserved: boolean }>`
      INSERT INTO idempotency_keys (tenant_id, api_key_id, idempotency_key, fingerprint, state, request_id, locked_until, expires_at)
      SELECT ${reservation.tenantId}, ${reservation.apiKeyId}, ${reservation.key}, ${fingerprint}, 'in_progress', ${reservation.requestId}, ${lockedUntil}, ${expiresAt}
      FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
      ON CONFLICT DO NOTHING
      RETURNING true AS reserved
    `.execute(db);
    if (inserted.rows.length > 0) return undefined;
    const row = await db
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'state', 'locked_until', 'expires_at', 'status_code', 'headers', 'body'])
      .where(keyRow(reservation))
      .executeTakeFirst();
    // Gone between the insert and the read: released by a request that failed. Try again.
    if (!row) continue;
    const lapsed = row.expires_at.getTime() <= now || (row.state === 'in_progress' && row.locked_until.getTime() <= now);
    if (lapsed) {
      const taken = await db
        .updateTable('idempotency_keys')
        .set({
          fingerprint,
          state: 'in_progress',
          request_id: reservation.requestId,
          locked_until: lockedUntil,
          expires_at: expiresAt,
          status_code: null,
          headers: null,
          body: null,
        })
        .where(keyRow(reservation))
        .where((eb) =>
          eb.or([
            eb('expires_at', '<=', new Date(now)),
            eb.and([eb('state', '=', 'in_progress'), eb('locked_until', '<=', new Date(now))]),
          ]),
        )
        .executeTakeFirst();
      if (taken.numUpdatedRows > 0n) return undefined;
      continue;
    }
    if (row.fingerprint !== fingerprint) {
      throw new ApiError(
        409,
        'IDEMPOTENCY_CONFLICT',
        'This X-Idempotency-Key was already used for a different request (method, path or body); use a new key for a new operation',
      );
    }
    return row;
  }
  throw new ApiError(409, 'IDEMPOTENCY_CONFLICT', 'This X-Idempotency-Key is contended by concurrent requests; retry');
}

type KeyRowFilter = (eb: ExpressionBuilder<Database, 'idempotency_keys'>) => Expression<SqlBool>;

/** The row of the reservation's key, whoever holds it. */
const keyRow =
  (reservation: Reservation): KeyRowFilter =>
  (eb) =>
    eb.and([
      eb('tenant_id', '=', reservation.tenantId),
      eb('api_key_id', '=', reservation.apiKeyId),
      eb('idempotency_key', '=', reservation.key),
    ]);

/** The same row, only while this request still holds it unfinished. */
const heldReservation =
  (reservation: Reservation): KeyRowFilter =>
  (eb) =>
    eb.and([keyRow(reservation)(eb), eb('request_id', '=', reservation.requestId), eb('state', '=', 'in_progress')]);

/** Writes the answer, body encrypted, into the reservation (kept 24 h from the reservation); false when the reservation is no longer this request's. */
async function storeResponse(
  executor: Db | Tx,
  secretKey: Buffer,
  reservation: Reservation,
  reply: FastifyReply,
  body: string,
): Promise<boolean> {
  const result = await executor
    .updateTable('idempotency_keys')
    .set({
      state: 'done',
      status_code: reply.statusCode,
      headers: JSON.stringify(storedHeaders(reply)),
      body: seal(secretKey, body, boundTo(reservation)),
    })
    .where(heldReservation(reservation))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Frees the key so that a retry runs (after a 5xx, or an answer not worth remembering). */
async function releaseReservation(db: Db, reservation: Reservation): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where(heldReservation(reservation))
    .execute();
}

/**
 * Stores the answer of an idempotent write inside the write's transaction, before commit, so that
 * the two commit together. No-op without a key. Throws (rolling the write back) if the reservation
 * lapsed and another request took the key over meanwhile: the write then happens once, there.
 */
export async function storeWithinWrite(tx: Tx, request: FastifyRequest, reply: FastifyReply, body: string): Promise<void> {
  const reservation = request.idempotency;
  if (!reservation) return;
  if (!(await storeResponse(tx, request.server.config.secretKey, reservation, reply, body))) {
    throw new ApiError(409, 'IDEMPOTENCY_CONFLICT', 'This request outlived the reservation of its X-Idempotency-Key and was rolled back; retry to get the stored answer');
  }
}

/** Called once the write's transaction committed: the stored answer is final. */
export function markStoredWithWrite(request: FastifyRequest): void {
  if (request.idempotency) request.idempotency.settled = true;
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
