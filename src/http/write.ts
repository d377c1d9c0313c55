import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db, Executor, Tx } from '../db';
import { isLockTimeout, isRetryableAbort, isUniqueViolation, isWriteNeedingTransaction, WriteRaced } from '../db/errors';
import type { TransactionRiders } from '../db/riders';
import { inTransaction } from '../db/transaction';
import { emit } from '../events/outbox';
import type { DomainEvent } from '../events/types';
import { ApiError, concurrentUpdate } from './errors';
import { applyRateLimitVerdict } from './rate-limit';
import { answerInsert, answerOfTakenKey, replay, stillRunning, storedAnswerQuery } from './idempotency';

/** What a write's work hands back: what it decided, and the events it caused (none when left out). */
export type WorkDone = object & { events?: DomainEvent[] };

/** Runs of a write whose rows other transactions keep writing first (WriteRaced), before it gives up. */
const RUNS_WHEN_RACED = 3;

/**
 * The one way a write runs, whoever asks for it (a route through respondWithWrite, the CLI):
 * `work` runs in one transaction and the events it returns are recorded in the outbox in the same
 * one, so they commit or vanish with the write; `finish` (the HTTP answer of a route) runs last,
 * inside the transaction. A deadlock victim runs again (inTransaction), and so does work that
 * threw WriteRaced, up to three runs; then 409 CONCURRENT_UPDATE with Retry-After, which tells a
 * client that sending the request again is safe. `genericPlans`: see TransactionRiders.
 */
export async function runWrite<T extends WorkDone, R = T>(
  db: Db,
  tenantId: string | undefined,
  work: (tx: Tx) => Promise<T>,
  finish: (done: T, tx: Tx, riders: TransactionRiders) => Promise<R> = async (done) => done as unknown as R,
  genericPlans = false,
): Promise<R> {
  for (let run = 1; ; run++) {
    try {
      return await inTransaction(db, async (tx, riders) => {
        const done = await work(tx);
        if (done.events?.length) {
          if (tenantId === undefined) throw new Error('a write without a tenant cannot record events');
          await emit(tx, tenantId, done.events);
        }
        return finish(done, tx, riders);
      }, genericPlans);
    } catch (error) {
      if (!(error instanceof WriteRaced)) throw error;
      if (run >= RUNS_WHEN_RACED) {
        throw concurrentUpdate('Concurrent requests kept writing the same rows as this one; retry the request');
      }
    }
  }
}

/** What a write route answers: its status (200 when left out) and body. */
export interface WriteOutcome<B = unknown> {
  statusCode?: number;
  body: B;
}

/** A route's write: the work, done by the feature's own code, and the answer the route makes of it. */
export interface RouteWrite<T extends WorkDone, B = unknown> {
  /** The tenant whose outbox records the work's events. */
  tenantId?: string;
  work: (tx: Tx) => Promise<T>;
  /** Runs inside the transaction, after the work: what it reads is what the write left. */
  answer: (done: T, db: Executor) => WriteOutcome<B> | Promise<WriteOutcome<B>>;
  /**
   * The write tried first as one autocommitted statement, without BEGIN and COMMIT, recording its
   * own events: it resolves to its result, or to undefined having written nothing (its statement
   * may also abort itself: isWriteNeedingTransaction), and then `work` runs in a transaction, as it
   * does when PostgreSQL aborted the statement as a deadlock victim. Not with an
   * X-Idempotency-Key, whose answer must commit with the write.
   */
  alone?: (db: Db) => Promise<T | undefined>;
  /**
   * Runs once the write has committed, before its answer is sent: what this instance must act on
   * before anyone hears of the write (a revoked key forgotten), and only if it did commit.
   */
  committed?: (done: T) => void;
  /** Its transaction runs every statement on its generic plan (TransactionRiders.genericPlans). */
  genericPlans?: boolean;
}

/**
 * Runs a route's write (runWrite: one transaction with its events, retried when raced or chosen
 * as a deadlock victim) and sends its answer. Every write route goes through here, so that
 * whatever must commit with the write (its events, the stored answer of an idempotent request)
 * commits in the same transaction, and a refused rate-limit verdict rolls it back. The body is
 * serialized (by the route's response schema) inside the transaction, so that a replay sends the
 * very bytes of the first answer.
 *
 * With an X-Idempotency-Key, the answer rides with COMMIT (db/riders.ts), so an idempotent write
 * costs no round trip more than another, and nothing is looked up beforehand: a retry runs its
 * work, whose answer then fails on the primary key of the stored one; the work rolls back and the
 * stored answer is sent. A write that fails looks for a stored answer before answering its error.
 */
export async function respondWithWrite<T extends WorkDone, B>(request: FastifyRequest, reply: FastifyReply, write: RouteWrite<T, B>): Promise<FastifyReply> {
  const { db, config } = request.server;
  const idempotent = request.idempotency;
  if (write.alone && !idempotent) {
    const done = await runAlone(request, reply, write.alone);
    if (done) {
      write.committed?.(done);
      return reply.send(serialized(reply, await write.answer(done, db)));
    }
  }
  let expiredKeyFreed = false;
  for (;;) {
    try {
      const { done, payload } = await runWrite(db, write.tenantId, write.work, async (done, tx, riders) => {
        const outcome = await write.answer(done, tx);
        // A request judged ahead of its rate-limit verdict commits only if the verdict lets it (rate-limit.ts).
        await applyRateLimitVerdict(request, reply);
        const payload = serialized(reply, outcome);
        if (idempotent) {
          riders.beforeCommit = answerInsert(db, idempotent, reply, payload, config.secretKey);
        }
        return { done, payload };
      }, write.genericPlans);
      if (idempotent) idempotent.settled = true;
      write.committed?.(done);
      return reply.send(payload);
    } catch (error) {
      // A refusal is the answer, whatever is stored under the key.
      if (error instanceof ApiError && error.code === 'RATE_LIMIT_EXCEEDED') throw error;
      if (idempotent) {
        // Another instance is committing an answer for this key: its request is still running.
        if (isLockTimeout(error)) throw stillRunning();
        // Whatever this run did, it rolled back. An answer stored under the key (by the first run
        // of a retried request, or by the request that won a race for the key) is the answer.
        const keyTaken = isUniqueViolation(error, 'idempotency_keys_pkey');
        const stored = keyTaken ? await answerOfTakenKey(db, idempotent) : (await db.executeQuery(storedAnswerQuery(db, idempotent))).rows[0];
        if (stored) return reply.send(replay(reply, idempotent, stored, config.secretKey));
        // The row holding the key had expired and is deleted: the request runs again.
        if (keyTaken && !expiredKeyFreed) {
          expiredKeyFreed = true;
          continue;
        }
      }
      throw error;
    }
  }
}

/**
 * A tenant's write answered with what it changed as it then stands: `view` reads that inside the
 * transaction, and the answer is 201 when the work says it `created` it, else 200.
 */
export async function respondWithView<T extends WorkDone & { created?: boolean }, D>(
  request: FastifyRequest,
  reply: FastifyReply,
  tenantId: string,
  work: (tx: Tx) => Promise<T>,
  view: (done: T, db: Executor) => Promise<D>,
): Promise<FastifyReply> {
  return respondWithWrite(request, reply, {
    tenantId,
    work,
    answer: async (done, db) => ({ statusCode: done.created ? 201 : 200, body: { success: true as const, data: await view(done, db), requestId: request.id } }),
  });
}

/** Sets the outcome's status and serializes its body with the route's serializer (schema-driven, or JSON.stringify: a string). */
function serialized(reply: FastifyReply, outcome: WriteOutcome): string {
  reply.status(outcome.statusCode ?? 200).type('application/json; charset=utf-8');
  return reply.serialize(outcome.body) as string;
}

async function runAlone<T>(request: FastifyRequest, reply: FastifyReply, alone: (db: Db) => Promise<T | undefined>): Promise<T | undefined> {
  // The statement commits as it runs: nothing of a request may commit before its verdict lets it.
  await applyRateLimitVerdict(request, reply);
  try {
    return await alone(request.server.db);
  } catch (error) {
    // A deadlock victim too: the transaction runs it again if it is chosen again.
    if (isWriteNeedingTransaction(error) || isRetryableAbort(error)) return undefined;
    throw error;
  }
}
