import { Type, type Static } from '@fastify/type-provider-typebox';
import { EVENT_NAMES } from '../events/types';
import { IsoDateTime, pageQuery } from '../http/schemas';
import { DEFAULT_OVERLAP_SECONDS, MAX_OVERLAP_SECONDS } from './secrets';
import { DELIVERY_ERROR_CODES } from './sender';
import type { DeliveryStatus } from './tables';

export const EventName = Type.Union(EVENT_NAMES.map((name) => Type.Literal(name)));
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'The receiving endpoint: a public address, https in production' });
const Events = Type.Array(EventName, { minItems: 1, uniqueItems: true });

const webhookFields = {
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  events: Type.Array(EventName),
  isActive: Type.Boolean(),
  createdAt: IsoDateTime,
};
export const Webhook = Type.Object({ ...webhookFields, updatedAt: IsoDateTime });
export const RegisteredWebhook = Type.Object({ ...webhookFields, secret: Type.String({ description: 'Shown only in this response' }) });

const Secret = Type.String({ minLength: 32, maxLength: 512, description: 'At least 32 characters; signs every delivery' });
export const RegisterBody = Type.Object({ url: Url, events: Events, secret: Secret });
export const RotateBody = Type.Object({
  secret: Secret,
  overlapSeconds: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_OVERLAP_SECONDS,
      description: `How long the replaced secret keeps signing next to the new one (default ${DEFAULT_OVERLAP_SECONDS}; 0: not at all)`,
    }),
  ),
});
export const RotatedWebhook = Type.Object({
  ...webhookFields,
  updatedAt: IsoDateTime,
  secret: Type.String({ description: 'The new secret, shown only in this response' }),
  previousSecretExpiresAt: Type.Union([IsoDateTime, Type.Null()], { description: 'Until when the replaced secret also signs; null without overlap' }),
});
export const UpdateBody = Type.Object({ url: Type.Optional(Url), events: Type.Optional(Events), isActive: Type.Optional(Type.Boolean()) });
export const TestBody = Type.Object({ event: EventName });
export const ReplayBody = Type.Object({
  from: Type.Optional(IsoDateTime),
  to: Type.Optional(IsoDateTime),
  event: Type.Optional(EventName),
});

export const ReplayAnswer = Type.Object({
  replayed: Type.Integer(),
  purged: Type.Optional(
    Type.Literal(true, { description: 'Present when dead letters the filters name were deleted by retention and cannot be replayed' }),
  ),
});

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'dead_letter', 'replayed'] as const satisfies readonly DeliveryStatus[];
export const DEAD_LETTER_STATUSES = ['dead_letter', 'replayed'] as const satisfies readonly DeliveryStatus[];
const literals = (values: readonly string[]) => Type.Union(values.map((value) => Type.Literal(value)));

export const DeliveryAttempt = Type.Object({
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
export const TestOutcome = Type.Object({
  delivered: Type.Boolean(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Integer(),
  error: Type.Union([literals(DELIVERY_ERROR_CODES), Type.Null()]),
  deliveryId: Type.String({ format: 'uuid' }),
  eventId: Type.String({ format: 'uuid' }),
});

export const IdParams = Type.Object({ id: Type.String() });
const listQuery = (statuses: readonly string[]) =>
  Type.Object({ ...pageQuery(50, 100), event: Type.Optional(EventName), status: Type.Optional(literals(statuses)) });
export const DeliveriesQuery = listQuery(DELIVERY_STATUSES);
export const DeadLettersQuery = listQuery(DEAD_LETTER_STATUSES);

export type DeliveriesQuery = Static<typeof DeliveriesQuery>;
