import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Tx } from '../db';
import { inTransaction } from '../db/transaction';
import { markStoredWithWrite, storeWithinWrite } from './idempotency';

/** What a write route answers, decided inside its transaction. */
export interface WriteOutcome<B = unknown> {
  statusCode: number;
  body: B;
}

/**
 * Runs a public write in one transaction and sends its answer. Every write route of the public API
 * goes through here, so that whatever must commit with the write (its events, the stored response
 * of an idempotent request) commits in the same transaction. The body is serialized (by the route's
 * response schema) inside the transaction, so that a replay sends the very bytes of the first answer.
 */
export async function respondWithWrite<B>(
  request: FastifyRequest,
  reply: FastifyReply,
  work: (tx: Tx) => Promise<WriteOutcome<B>>,
): Promise<FastifyReply> {
  const payload = await inTransaction(request.server.db, async (tx) => {
    const outcome = await work(tx);
    reply.status(outcome.statusCode).type('application/json; charset=utf-8');
    // The route's JSON serializer (schema-driven, or JSON.stringify) always yields a string.
    const serialized = reply.serialize(outcome.body) as string;
    await storeWithinWrite(tx, request, reply, serialized);
    return serialized;
  });
  markStoredWithWrite(request);
  return reply.send(payload);
}
