import { randomUUID } from 'node:crypto';
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import type { Executor } from '../db';
import { DELIVERIES_CHANNEL } from '../events/outbox';
import { EVENT_NAMES, type EventName } from '../events/types';
import { tenantOf } from '../http/auth';
import { decodeCursor, encodeCursor } from '../http/cursor';
import { notFound, validationError } from '../http/errors';
import { IsoDateTime, Page, Success, pageQuery, responses } from '../http/schemas';
import { respondWithWrite } from '../http/write';
import { destinationPolicy, urlProblem } from './destination';
import { deadLettersPurged } from '../housekeeping/retention';
import { SAMPLE_PAYLOADS } from './samples';
import { DEFAULT_OVERLAP_SECONDS, MAX_OVERLAP_SECONDS, encryptSecret, livePreviousSecret, rotateSecret, signingSecrets } from './secrets';
import { DELIVERY_ERROR_CODES, sendWebhook } from './sender';
import type { DeliveryStatus } from './tables';

const EventName = Type.Union(EVENT_NAMES.map((name) => Type.Literal(name)));
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'The receiving endpoint: a public address, https in production' });
const Events = Type.Array(EventName, { minItems: 1, uniqueItems: true });

const webhookFields = {
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  events: Type.Array(EventName),
  isActive: Type.Boolean(),
  createdAt: IsoDateTime,
};
const Webhook = Type.Object({ ...webhookFields, updatedAt: IsoDateTime });
const RegisteredWebhook = Type.Object({ ...webhookFields, secret: Type.String({ description: 'Shown only in this response' }) });

const Secret = Type.String({ minLength: 32, maxLength: 512, description: 'At least 32 characters; signs every delivery' });
const RegisterBody = Type.Object({ url: Url, events: Events, secret: Secret });
const RotateBody = Type.Object({
  secret: Secret,
  overlapSeconds: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_OVERLAP_SECONDS,
      description: `How long the replaced secret keeps signing next to the new one (default ${DEFAULT_OVERLAP_SECONDS}; 0: not at all)`,
    }),
  ),
});
const RotatedWebhook = Type.Object({
  ...webhookFields,
  updatedAt: IsoDateTime,
  secret: Type.String({ description: 'The new secret, shown only in this response' }),
  previousSecretExpiresAt: Type.Union([IsoDateTime, Type.Null()], { description: 'Until when the replaced secret also signs; null without overlap' }),
});
const UpdateBody = Type.Object({ url: Type.Optional(Url), events: Type.Optional(Events), isActive: Type.Optional(Type.Boolean()) });
const TestBody = Type.Object({ event: EventName });
const ReplayBody = Type.Object({
  from: Type.Optional(IsoDateTime),
  to: Type.Optional(IsoDateTime),
  event: Type.Optional(EventName),
});

const ReplayAnswer = Type.Object({
  replayed: Type.Integer(),
  purged: Type.Optional(
    Type.Literal(true, { description: 'Present when dead letters the filters name were deleted by retention and cannot be replayed' }),
  ),
});

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'dead_letter', 'replayed'] as const satisfies readonly DeliveryStatus[];
const DEAD_LETTER_STATUSES = ['dead_letter', 'replayed'] as const satisfies readonly DeliveryStatus[];
const literals = (values: readonly string[]) => Type.Union(values.map((value) => Type.Literal(value)));

const DeliveryAttempt = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The X-Service-Delivery-Id of the attempt' }),
  eventId: Type.String({ format: 'uuid', description: 'The X-Service-Event-Id, the same for every attempt and replay' }),
  event: EventName,
  status: literals(DELIVERY_STATUSES),
  attempt: Type.Integer({ description: '1 for the first send, then one more per retry' }),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([literals(DELIVERY_ERROR_CODES), Type.Null()]),
  responseBody: Type.Union([Type.String({ description: 'The first 4 KB of the answer' }), Type.Null()]),
  test: Type.Boolean({ description: 'Sent by POST /webhooks/{id}/test' }),
  createdAt: IsoDateTime,
  nextAttemptAt: Type.Union([IsoDateTime, Type.Null()], {
    description: 'Pending: when it is due; failed: when the retry is due; otherwise null',
  }),
});
const TestOutcome = Type.Object({
  delivered: Type.Boolean(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Integer(),
  error: Type.Union([literals(DELIVERY_ERROR_CODES), Type.Null()]),
  deliveryId: Type.String({ format: 'uuid' }),
  eventId: Type.String({ format: 'uuid' }),
});

const IdParams = Type.Object({ id: Type.String() });
const listQuery = (statuses: readonly string[]) =>
  Type.Object({ ...pageQuery(50, 100), event: Type.Optional(EventName), status: Type.Optional(literals(statuses)) });
const DeliveriesQuery = listQuery(DELIVERY_STATUSES);
const DeadLettersQuery = listQuery(DEAD_LETTER_STATUSES);

/** Dead letters re-queued by one replay call; call again for the rest. */
export const REPLAY_BATCH = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const route = (operationId: string, summary: string) => ({ tags: ['webhooks'], operationId, summary, security: [{ apiKey: [] }] });
const manage = { permission: 'webhooks:manage' as const };

interface WebhookRow {
  id: string;
  url: string;
  events: string[];
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

const webhookView = (row: WebhookRow) => ({
  id: row.id,
  url: row.url,
  events: row.events as EventName[],
  isActive: row.is_active,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const WEBHOOK_COLUMNS = ['id', 'url', 'events', 'is_active', 'created_at', 'updated_at'] as const;

async function findWebhook(db: Executor, tenantId: string, id: string) {
  if (!UUID.test(id)) throw notFound(`Webhook ${id}`);
  const row = await db
    .selectFrom('webhooks')
    .select([...WEBHOOK_COLUMNS, 'secret_ciphertext', livePreviousSecret('webhooks').as('previous_secret_ciphertext')])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound(`Webhook ${id}`);
  return row;
}

/** Webhook management, spec §4.10 and DESIGN.md §3. Every query is scoped by the caller's tenant. */
export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app;
  const destinations = destinationPolicy(config);

  function checkUrl(url: string | undefined): void {
    const problem = url === undefined ? undefined : urlProblem(url, destinations);
    if (problem) throw validationError([{ field: 'url', message: problem }]);
  }

  app.post(
    '/webhooks',
    {
      config: manage,
      schema: { ...route('createWebhook', 'Register a webhook'), body: RegisterBody, response: responses({ 201: Success(RegisteredWebhook) }) },
    },
    async (request, reply) => {
      const { url, events, secret } = request.body;
      checkUrl(url);
      const tenantId = tenantOf(request);
      const id = randomUUID();
      return respondWithWrite(request, reply, { work: async (tx) => {
        const row = await tx
          .insertInto('webhooks')
          .values({ tenant_id: tenantId, id, url, events, secret_ciphertext: encryptSecret(config.secretKey, secret, tenantId, id) })
          .returning(WEBHOOK_COLUMNS)
          .executeTakeFirstOrThrow();
        // The response schema leaves out updatedAt.
        return { statusCode: 201, body: { success: true as const, data: { ...webhookView(row), secret }, requestId: request.id } };
      }, answer: (outcome) => outcome });
    },
  );

  app.get(
    '/webhooks',
    { config: manage, schema: { ...route('listWebhooks', "List the tenant's webhooks"), response: responses({ 200: Success(Type.Array(Webhook)) }) } },
    async (request) => {
      const rows = await db
        .selectFrom('webhooks')
        .select(WEBHOOK_COLUMNS)
        .where('tenant_id', '=', tenantOf(request))
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return { success: true as const, data: rows.map(webhookView), requestId: request.id };
    },
  );

  app.get(
    '/webhooks/:id',
    { config: manage, schema: { ...route('getWebhook', 'Read one webhook'), params: IdParams, response: responses({ 200: Success(Webhook) }, 404) } },
    async (request) => {
      const row = await findWebhook(db, tenantOf(request), request.params.id);
      return { success: true as const, data: webhookView(row), requestId: request.id };
    },
  );

  app.patch(
    '/webhooks/:id',
    {
      config: manage,
      schema: {
        ...route('updateWebhook', 'Change the URL, the events or the active flag of a webhook'),
        params: IdParams,
        body: UpdateBody,
        response: responses({ 200: Success(Webhook) }, 404),
      },
    },
    async (request, reply) => {
      const { url, events, isActive } = request.body;
      checkUrl(url);
      const tenantId = tenantOf(request);
      return respondWithWrite(request, reply, { work: async (tx) => {
        const current = await findWebhook(tx, tenantId, request.params.id);
        const row = await tx
          .updateTable('webhooks')
          .set({
            url: url ?? current.url,
            events: events ?? current.events,
            is_active: isActive ?? current.is_active,
            updated_at: sql<Date>`now()`,
          })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', current.id)
          .returning(WEBHOOK_COLUMNS)
          .executeTakeFirstOrThrow();
        // Reactivation makes the deliveries that waited while it was inactive due.
        if (isActive && !current.is_active) await notifyWorkers(tx);
        return { statusCode: 200, body: { success: true as const, data: webhookView(row), requestId: request.id } };
      }, answer: (outcome) => outcome });
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      config: manage,
      schema: {
        ...route('deleteWebhook', 'Remove a webhook, its pending deliveries and its history'),
        params: IdParams,
        response: responses({ 200: Success(Type.Object({ id: Type.String({ format: 'uuid' }), deleted: Type.Literal(true) })) }, 404),
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      return respondWithWrite(request, reply, { work: async (tx) => {
        const { id } = await findWebhook(tx, tenantId, request.params.id);
        await tx.deleteFrom('webhooks').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
        return { statusCode: 200, body: { success: true as const, data: { id, deleted: true as const }, requestId: request.id } };
      }, answer: (outcome) => outcome });
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      config: manage,
      schema: {
        ...route('rotateWebhookSecret', 'Replace the secret; the replaced one keeps signing next to it during the overlap'),
        params: IdParams,
        body: RotateBody,
        response: responses({ 200: Success(RotatedWebhook) }, 404),
      },
    },
    async (request, reply) => {
      const { secret, overlapSeconds = DEFAULT_OVERLAP_SECONDS } = request.body;
      const tenantId = tenantOf(request);
      return respondWithWrite(request, reply, { work: async (tx) => {
        const { id } = await findWebhook(tx, tenantId, request.params.id);
        const row = await rotateSecret(tx, config.secretKey, { tenantId, webhookId: id }, secret, overlapSeconds);
        const data = { ...webhookView(row), secret, previousSecretExpiresAt: row.previous_secret_expires_at?.toISOString() ?? null };
        return { statusCode: 200, body: { success: true as const, data, requestId: request.id } };
      }, answer: (outcome) => outcome });
    },
  );

  app.post(
    '/webhooks/:id/test',
    {
      // The send happens before the transaction: a retry must find the stored answer before it.
      config: { ...manage, idempotencyLookupFirst: true },
      schema: {
        ...route('testWebhook', 'Send a synthetic event (marked test: true) once, without retries, and answer how it went'),
        params: IdParams,
        body: TestBody,
        response: responses({ 200: Success(TestOutcome) }, 404),
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const webhook = await findWebhook(db, tenantId, request.params.id);
      const { event } = request.body;
      const eventId = randomUUID();
      // The HTTP call happens outside any transaction; only its record is written in one.
      const outcome = await sendWebhook(
        {
          url: webhook.url,
          ...signingSecrets(config.secretKey, webhook, tenantId, webhook.id),
          event,
          eventId,
          timestamp: new Date().toISOString(),
          data: SAMPLE_PAYLOADS[event],
          test: true,
        },
        { timeoutMs: config.webhookTimeoutMs, destinations },
      );
      return respondWithWrite(request, reply, { work: async (tx) => {
        await tx
          .insertInto('webhook_deliveries')
          .values({
            tenant_id: tenantId,
            id: outcome.deliveryId,
            webhook_id: webhook.id,
            event_id: eventId,
            event,
            test: true,
            status: outcome.delivered ? 'delivered' : 'failed',
            next_attempt_at: null,
            status_code: outcome.statusCode,
            duration_ms: outcome.durationMs,
            error: outcome.error,
            response_body: outcome.responseBody,
            attempted_at: sql<Date>`now()`,
          })
          .execute();
        const { delivered, statusCode, durationMs, error, deliveryId } = outcome;
        return {
          statusCode: 200,
          body: { success: true as const, data: { delivered, statusCode, durationMs, error, deliveryId, eventId }, requestId: request.id },
        };
      }, answer: (outcome) => outcome });
    },
  );

  app.post(
    '/webhooks/:id/replay',
    {
      config: manage,
      schema: {
        ...route('replayDeadLetters', `Re-queue dead letters (at most ${REPLAY_BATCH} per call) as new deliveries of the same events`),
        params: IdParams,
        body: ReplayBody,
        response: responses({ 200: Success(ReplayAnswer) }, 404),
      },
      // The filters are optional, and so is the body that carries them.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { from, to, event } = request.body;
      return respondWithWrite(request, reply, { work: async (tx) => {
        const { id } = await findWebhook(tx, tenantId, request.params.id);
        // Marks the dead letters replayed as it re-queues them; a concurrent or repeated call
        // waits on the row locks and then no longer finds them.
        const result = await sql<{ replayed: number }>`
          WITH picked AS (
            SELECT tenant_id, id FROM webhook_deliveries
            WHERE tenant_id = ${tenantId} AND webhook_id = ${id} AND status = 'dead_letter'
              ${from ? sql`AND created_at >= ${from}::timestamptz` : sql``}
              ${to ? sql`AND created_at <= ${to}::timestamptz` : sql``}
              ${event ? sql`AND event = ${event}` : sql``}
            ORDER BY created_at
            LIMIT ${REPLAY_BATCH}
            FOR UPDATE
          ),
          marked AS (
            UPDATE webhook_deliveries d SET status = 'replayed'
            FROM picked WHERE d.tenant_id = picked.tenant_id AND d.id = picked.id AND d.status = 'dead_letter'
            RETURNING d.tenant_id, d.webhook_id, d.event_id, d.event
          ),
          requeued AS (
            INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, next_attempt_at)
            SELECT tenant_id, webhook_id, event_id, event, now() FROM marked
            RETURNING 1
          )
          SELECT count(*)::integer AS replayed FROM requeued
        `.execute(tx);
        const replayed = result.rows[0]?.replayed ?? 0;
        if (replayed > 0) await notifyWorkers(tx);
        const purged = await deadLettersPurged(tx, tenantId, id, { from, event });
        const data = purged ? { replayed, purged } : { replayed };
        return { statusCode: 200, body: { success: true as const, data, requestId: request.id } };
      }, answer: (outcome) => outcome });
    },
  );

  async function listAttempts(
    tenantId: string,
    webhookId: string,
    query: Static<typeof DeliveriesQuery>,
    statuses: readonly DeliveryStatus[],
  ) {
    const { id } = await findWebhook(db, tenantId, webhookId);
    const limit = query.limit ?? 50;
    const filtered = db
      .selectFrom('webhook_deliveries')
      .where('tenant_id', '=', tenantId)
      .where('webhook_id', '=', id)
      .where('status', 'in', query.status ? [query.status as DeliveryStatus] : [...statuses])
      .$if(query.event !== undefined, (q) => q.where('event', '=', query.event as string));
    const after = query.cursor === undefined ? undefined : (decodeCursor(query.cursor, ['number'])[0] as number);
    const [rows, counted] = await Promise.all([
      filtered
        .select(['id', 'seq', 'event_id', 'event', 'status', 'attempt', 'status_code', 'duration_ms', 'error', 'response_body', 'test', 'created_at', 'next_attempt_at'])
        .$if(after !== undefined, (q) => q.where('seq', '<', after as number))
        .orderBy('seq', 'desc')
        .limit(limit + 1)
        .execute(),
      filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    const last = page.at(-1);
    return {
      success: true as const,
      data: page.map((row) => ({
        id: row.id,
        eventId: row.event_id,
        event: row.event as EventName,
        status: row.status,
        attempt: row.attempt,
        statusCode: row.status_code,
        durationMs: row.duration_ms,
        error: row.error as (typeof DELIVERY_ERROR_CODES)[number] | null,
        responseBody: row.response_body,
        test: row.test,
        createdAt: row.created_at.toISOString(),
        nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
      })),
      pagination: { limit, hasMore, nextCursor: hasMore && last ? encodeCursor([last.seq]) : null, total: Number(counted.total) },
    };
  }

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: manage,
      schema: {
        ...route('listDeliveries', 'Delivery attempts of a webhook, newest first'),
        params: IdParams,
        querystring: DeliveriesQuery,
        response: responses({ 200: Page(DeliveryAttempt) }, 404),
      },
    },
    async (request) => ({ ...(await listAttempts(tenantOf(request), request.params.id, request.query, DELIVERY_STATUSES)), requestId: request.id }),
  );

  app.get(
    '/webhooks/:id/dead-letters',
    {
      config: manage,
      schema: {
        ...route('listDeadLetters', 'Deliveries whose last retry failed (status dead_letter), and those already replayed (status replayed)'),
        params: IdParams,
        querystring: DeadLettersQuery,
        response: responses({ 200: Page(DeliveryAttempt) }, 404),
      },
    },
    async (request) => ({ ...(await listAttempts(tenantOf(request), request.params.id, request.query, DEAD_LETTER_STATUSES)), requestId: request.id }),
  );
};

async function notifyWorkers(executor: Executor): Promise<void> {
  await sql`SELECT pg_notify(${DELIVERIES_CHANNEL}, '')`.execute(executor);
}
