import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db, Tx } from '../db';
import { isLockTimeout, isRetryableAbort, isUniqueViolation, isWriteNeedingTransaction } from '../db/errors';
import { inTransaction } from '../db/transaction';
import { ApiError, conflict } from './errors';
import { applyRateLimitVerdict } from './rate-limit';
import { answerInsert, answerOfTakenKey, replay, stillRunning, storedAnswerQuery } from './idempotency';

/** What a write route answers, decided inside its transaction. */
export interface WriteOutcome<B = unknown> {
  statusCode: number;
  body: B;
}

/**
 * Thrown by a write's work when a row it had read as absent was written meanwhile by a concurrent
 * transaction (its statement failed on a unique index): the transaction rolls back and the work runs
 * again from the start, now reading that row. After `RUNS_WHEN_RACED` runs, 409 CONFLICT.
 */
export class WriteRaced extends Error {
  constructor(cause: unknown) {
    super('a row the write read as absent was written by a concurrent transaction', { cause });
  }
}
const RUNS_WHEN_RACED = 3;

/**
 * Runs a public write in one transaction and sends its answer. Every write route of the public API
 * goes through here, so that whatever must commit with the write (its events, the stored answer
 * of an idempotent request) commits in the same transaction. The body is serialized (by the route's
 * response schema) inside the transaction, so that a replay sends the very bytes of the first answer.
 *
 * With an X-Idempotency-Key, the answer rides with COMMIT (db/riders.ts), so an idempotent write
 * costs no round trip more than another, and nothing is looked up beforehand: a retry runs its
 * work, whose answer then fails on the primary key of the stored one; the work rolls back and the
 * stored answer is sent. A write that fails looks for a stored answer before answering its error.
 *
 * `alone`, when given, tries the write first as one autocommitted statement, without BEGIN and
 * COMMIT: it resolves to the outcome, or to undefined having written nothing (its statement may
 * also abort itself: isWriteNeedingTransaction), and then `work` runs in a transaction, as it does
 * when PostgreSQL aborted the statement as a deadlock victim. Not with an
 * X-Idempotency-Key, whose answer must commit with the write.
 */
export async function respondWithWrite<B>(
  request: FastifyRequest,
  reply: FastifyReply,
  work: (tx: Tx) => Promise<WriteOutcome<B>>,
  alone?: (db: Db) => Promise<WriteOutcome<B> | undefined>,
): Promise<FastifyReply> {
  const { db, config } = request.server;
  const idempotent = request.idempotency;
  if (alone && !idempotent) {
    const outcome = await runAlone(request, reply, alone);
    if (outcome) return reply.send(serialized(reply, outcome));
  }
  let expiredKeyFreed = false;
  for (let attempt = 1; ; attempt++) {
    try {
      const payload = await inTransaction(db, async (tx, riders) => {
        const outcome = await work(tx);
        // A request judged ahead of its rate-limit verdict commits only if the verdict lets it (rate-limit.ts).
        await applyRateLimitVerdict(request, reply);
        const payload = serialized(reply, outcome);
        if (idempotent) {
          riders.beforeCommit = answerInsert(db, idempotent, reply, payload, config.secretKey);
        }
        return payload;
      });
      if (idempotent) idempotent.settled = true;
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
      if (error instanceof WriteRaced) {
        if (attempt < RUNS_WHEN_RACED) continue;
        throw conflict('Concurrent requests kept writing the same rows as this one; retry the request');
      }
      throw error;
    }
  }
}

/** Sets the outcome's status and serializes its body with the route's serializer (schema-driven, or JSON.stringify: a string). */
function serialized(reply: FastifyReply, outcome: WriteOutcome): string {
  reply.status(outcome.statusCode).type('application/json; charset=utf-8');
  return reply.serialize(outcome.body) as string;
}

async function runAlone<B>(request: FastifyRequest, reply: FastifyReply, alone: (db: Db) => Promise<WriteOutcome<B> | undefined>) {
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
