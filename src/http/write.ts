import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Tx } from '../db';

/** What a write route answers, decided inside its transaction. */
export interface WriteOutcome<B = unknown> {
  statusCode: number;
  body: B;
}

/**
 * Runs a public write in one transaction and sends its answer. Every write route of the public API
 * goes through here, so that whatever must commit with the write (its events, the stored response
 * of an idempotent request) commits in the same transaction.
 */
export async function respondWithWrite<B>(
  request: FastifyRequest,
  reply: FastifyReply,
  work: (tx: Tx) => Promise<WriteOutcome<B>>,
): Promise<FastifyReply> {
  const outcome = await request.server.db.transaction().execute(work);
  return reply.status(outcome.statusCode).send(outcome.body);
}
