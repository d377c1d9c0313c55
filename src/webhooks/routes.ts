import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { EventName } from '../events/types';
import { tenantOf } from '../http/auth';
import { validationError } from '../http/errors';
import { Page, Success, responses } from '../http/schemas';
import { respondWithWrite } from '../http/write';
import { destinationPolicy, urlProblem } from './destination';
import {
  DEAD_LETTER_STATUSES,
  DELIVERY_STATUSES,
  DeadLettersQuery,
  DeliveriesQuery,
  DeliveryAttempt,
  IdParams,
  RegisterBody,
  RegisteredWebhook,
  ReplayAnswer,
  ReplayBody,
  RotateBody,
  RotatedWebhook,
  TestBody,
  TestOutcome,
  UpdateBody,
  Webhook,
} from './schemas';
import { DEFAULT_OVERLAP_SECONDS } from './secrets';
import type { DELIVERY_ERROR_CODES } from './sender';
import {
  REPLAY_BATCH,
  createWebhook,
  deleteWebhook,
  findWebhook,
  listAttempts,
  listWebhooks,
  recordTestSend,
  replayDeadLetters,
  rotateWebhookSecret,
  sendTest,
  updateWebhook,
  type WebhookRow,
} from './store';

const route = (operationId: string, summary: string) => ({ tags: ['webhooks'], operationId, summary, security: [{ apiKey: [] }] });
const manage = { permission: 'webhooks:manage' as const };

const webhookView = (row: WebhookRow) => ({
  id: row.id,
  url: row.url,
  events: row.events as EventName[],
  isActive: row.is_active,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

type AttemptPage = Awaited<ReturnType<typeof listAttempts>>;

const attemptsPage = ({ rows, limit, hasMore, nextCursor, total }: AttemptPage, requestId: string) => ({
  success: true as const,
  data: rows.map((row) => ({
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
  pagination: { limit, hasMore, nextCursor, total },
  requestId,
});

/** Webhook management. Every query is scoped by the caller's tenant. */
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
      checkUrl(request.body.url);
      return respondWithWrite(request, reply, {
        work: async (tx) => ({ row: await createWebhook(tx, config.secretKey, tenantOf(request), request.body) }),
        // The response schema leaves out updatedAt; the secret is shown only here.
        answer: ({ row }) => ({ statusCode: 201, body: { success: true as const, data: { ...webhookView(row), secret: request.body.secret }, requestId: request.id } }),
      });
    },
  );

  app.get(
    '/webhooks',
    { config: manage, schema: { ...route('listWebhooks', "List the tenant's webhooks"), response: responses({ 200: Success(Type.Array(Webhook)) }) } },
    async (request) => ({ success: true as const, data: (await listWebhooks(db, tenantOf(request))).map(webhookView), requestId: request.id }),
  );

  app.get(
    '/webhooks/:id',
    { config: manage, schema: { ...route('getWebhook', 'Read one webhook'), params: IdParams, response: responses({ 200: Success(Webhook) }, 404) } },
    async (request) => ({ success: true as const, data: webhookView(await findWebhook(db, tenantOf(request), request.params.id)), requestId: request.id }),
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
      checkUrl(request.body.url);
      return respondWithWrite(request, reply, {
        work: async (tx) => ({ row: await updateWebhook(tx, tenantOf(request), request.params.id, request.body) }),
        answer: ({ row }) => ({ body: { success: true as const, data: webhookView(row), requestId: request.id } }),
      });
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
    async (request, reply) =>
      respondWithWrite(request, reply, {
        work: (tx) => deleteWebhook(tx, tenantOf(request), request.params.id),
        answer: ({ id }) => ({ body: { success: true as const, data: { id, deleted: true as const }, requestId: request.id } }),
      }),
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
      return respondWithWrite(request, reply, {
        work: async (tx) => ({ row: await rotateWebhookSecret(tx, config.secretKey, tenantOf(request), request.params.id, secret, overlapSeconds) }),
        answer: ({ row }) => ({
          body: {
            success: true as const,
            data: { ...webhookView(row), secret, previousSecretExpiresAt: row.previous_secret_expires_at?.toISOString() ?? null },
            requestId: request.id,
          },
        }),
      });
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
      const sent = await sendTest(db, { secretKey: config.secretKey, timeoutMs: config.webhookTimeoutMs, destinations }, tenantId, request.params.id, request.body.event);
      return respondWithWrite(request, reply, {
        work: (tx) => recordTestSend(tx, tenantId, sent),
        answer: ({ eventId, outcome: { delivered, statusCode, durationMs, error, deliveryId } }) => ({
          body: { success: true as const, data: { delivered, statusCode, durationMs, error, deliveryId, eventId }, requestId: request.id },
        }),
      });
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
    async (request, reply) =>
      respondWithWrite(request, reply, {
        work: (tx) => replayDeadLetters(tx, tenantOf(request), request.params.id, request.body),
        answer: ({ replayed, purged }) => ({ body: { success: true as const, data: purged ? { replayed, purged } : { replayed }, requestId: request.id } }),
      }),
  );

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
    async (request) => attemptsPage(await listAttempts(db, tenantOf(request), request.params.id, request.query, DELIVERY_STATUSES), request.id),
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
    async (request) => attemptsPage(await listAttempts(db, tenantOf(request), request.params.id, request.query, DEAD_LETTER_STATUSES), request.id),
  );
};
