import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Tx } from '../db';
import { isLockTimeout, isUniqueViolation } from '../db/errors';
import type { TransactionRiders } from '../db/riders';
import { inTransaction } from '../db/transaction';
import { conflict } from './errors';
import { answerInsert, answerOfTakenKey, replay, stillRunning, storedAnswerQuery, type StoredAnswer } from './idempotency';

/** What a write route answers, decided inside its transaction. */
export interface WriteOutcome<B = unknown> {
  statusCode: number;
  body: B;
}

/** Thrown inside the transaction to roll it back: the key's answer is already stored. */
const ALREADY_ANSWERED = Symbol('already answered');

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
 * With an X-Idempotency-Key, the look-up of a stored answer rides with BEGIN and the work's first
 * statement, and the answer with COMMIT (db/riders.ts): an idempotent write costs no round trip
 * more than another. A retry thus runs its work before it learns that an answer is stored; the
 * work is then rolled back and the stored answer sent.
 */
export async function respondWithWrite<B>(
  request: FastifyRequest,
  reply: FastifyReply,
  work: (tx: Tx) => Promise<WriteOutcome<B>>,
): Promise<FastifyReply> {
  const { db, config } = request.server;
  const idempotent = request.idempotency;
  const lookup = idempotent ? storedAnswerQuery(db, idempotent) : undefined;
  let expiredKeyFreed = false;
  for (let attempt = 1; ; attempt++) {
    let riders: TransactionRiders | undefined;
    const storedAnswer = () => riders?.beginRows?.[0] as StoredAnswer | undefined;
    try {
      const payload = await inTransaction(
        db,
        async (tx, attemptRiders) => {
          riders = attemptRiders;
          const outcome = await work(tx);
          if (storedAnswer()) throw ALREADY_ANSWERED;
          reply.status(outcome.statusCode).type('application/json; charset=utf-8');
          // The route's JSON serializer (schema-driven, or JSON.stringify) always yields a string.
          const serialized = reply.serialize(outcome.body) as string;
          if (idempotent) attemptRiders.beforeCommit = answerInsert(db, idempotent, reply, serialized, config.secretKey);
          return serialized;
        },
        lookup,
      );
      if (idempotent) idempotent.settled = true;
      return reply.send(payload);
    } catch (error) {
      if (idempotent && lookup) {
        // Whatever this run did or threw, it rolled back: a stored answer is the answer.
        const stored = storedAnswer() ?? (riders?.beginRows ? undefined : (await db.executeQuery(lookup)).rows[0]);
        if (stored) return reply.send(replay(reply, idempotent, stored, config.secretKey));
        // Another instance is committing an answer for this key: its request is still running.
        if (isLockTimeout(error)) throw stillRunning();
      }
      if (error instanceof WriteRaced) {
        if (attempt < RUNS_WHEN_RACED) continue;
        throw conflict('Concurrent requests kept writing the same rows as this one; retry the request');
      }
      if (!idempotent || !isUniqueViolation(error, 'idempotency_keys_pkey') || expiredKeyFreed) throw error;
      // Another request's answer for this key committed while this one ran: that answer is the
      // one. Unless the row had expired, which then made way for a rerun.
      const answer = await answerOfTakenKey(db, idempotent);
      if (answer) return reply.send(replay(reply, idempotent, answer, config.secretKey));
      expiredKeyFreed = true;
    }
  }
}
