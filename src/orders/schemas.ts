import { Type, type Static } from '@sinclair/typebox';
import { BatchResult, IsoDateTime, Page, RequestId, Success, pageQuery } from '../http/schemas';

export const ORDER_STATUSES = ['PENDING', 'PENDING_VALIDATION', 'IN_PICKING', 'PICKED', 'PACKED', 'DISPATCHED', 'CANCELLED'] as const;
export const OrderStatusSchema = Type.Union(ORDER_STATUSES.map((s) => Type.Literal(s)));

const IsoDate = Type.String({ format: 'iso-8601', maxLength: 40, description: 'ISO 8601 date or date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** The most units one order line may ask for: more than a warehouse ships in one order, and exact as a JS number. */
export const MAX_ITEM_QUANTITY = 1_000_000;

export const OrderItemInput = Type.Object({
  productExternalId: Type.String({ minLength: 1, maxLength: 100, description: '`externalId` of a catalog product' }),
  productSku: Type.String({ minLength: 1, maxLength: 50, description: 'sku of that product; must match it' }),
  quantity: Type.Integer({ minimum: 1, maximum: MAX_ITEM_QUANTITY, description: `Whole units, 1 to ${MAX_ITEM_QUANTITY}` }),
});

export const CustomerInput = Type.Object({
  externalId: Type.String({ minLength: 1, maxLength: 100 }),
  name: Type.Optional(Type.String({ maxLength: 255 })),
  email: Type.Optional(Type.String({ maxLength: 255 })),
  phone: Type.Optional(Type.String({ maxLength: 50 })),
});

/** An order as integrators send it (docs/orders.md). Unknown fields are ignored, each with a warning. */
export const OrderInput = Type.Object({
  externalId: Type.String({ minLength: 1, maxLength: 100 }),
  orderNumber: Type.String({ minLength: 1, maxLength: 100 }),
  items: Type.Array(OrderItemInput, { minItems: 1, maxItems: 1000 }),
  priority: Type.Optional(Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('urgent')])),
  channel: Type.Optional(Type.String({ maxLength: 100 })),
  orderDate: Type.Optional(IsoDate),
  dueDate: Type.Optional(IsoDate),
  shippingMethod: Type.Optional(Type.String({ maxLength: 100 })),
  shippingAddress: Type.Optional(Type.String({ maxLength: 500 })),
  notes: Type.Optional(Type.String({ maxLength: 1000 })),
  customer: Type.Optional(CustomerInput),
  metadata: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Free custom fields' })),
});
export type OrderInput = Static<typeof OrderInput>;

const ProductRef = Type.Object({ productExternalId: Type.String(), productSku: Type.String() });
export const Issue = Type.Object({
  type: Type.Union([Type.Literal('UNRESOLVED_PRODUCT'), Type.Literal('INSUFFICIENT_STOCK')]),
  productExternalId: Type.String(),
  productSku: Type.String(),
});

/** What POST /orders answers in `data`. */
export const OrderSummary = Type.Object({
  id: Type.String({ format: 'uuid' }),
  externalId: Type.String(),
  orderNumber: Type.String(),
  status: OrderStatusSchema,
  hasIssues: Type.Boolean(),
  itemsCount: Type.Integer({ description: 'Number of item lines' }),
  unresolvedProducts: Type.Array(ProductRef),
  issues: Type.Array(Issue, { description: 'Every open issue, both kinds' }),
});

/** The units of each lot an item got, as the reads of one order show them. */
export const PickedLots = (description: string) =>
  Type.Array(Type.Object({ lot: Type.String(), expiresOn: Nullable(Type.String({ format: 'date' })), quantity: Type.Number() }), { description });

/** The whole order, as GET /orders/{externalId}, the list and the warehouse API show it. */
export const Order = Type.Object({
  ...OrderSummary.properties,
  items: Type.Array(
    Type.Object({
      productExternalId: Type.String(),
      productSku: Type.String(),
      quantity: Type.Number(),
      lots: Type.Optional(PickedLots('GET /orders/{externalId} only, once the item was picked from slots of lots: the units of each lot it got, earliest expiry first')),
    }),
  ),
  customer: Nullable(
    Type.Object({
      externalId: Type.String(),
      name: Type.Optional(Type.String()),
      email: Type.Optional(Type.String()),
      phone: Type.Optional(Type.String()),
    }),
  ),
  priority: Nullable(Type.String()),
  channel: Nullable(Type.String()),
  orderDate: Nullable(IsoDateTime),
  dueDate: Nullable(IsoDateTime),
  shippingMethod: Nullable(Type.String()),
  shippingAddress: Nullable(Type.String()),
  notes: Nullable(Type.String()),
  metadata: Nullable(Type.Object({}, { additionalProperties: true })),
  carrier: Nullable(Type.String()),
  trackingNumber: Nullable(Type.String()),
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
  cancelledAt: Nullable(IsoDateTime),
  pickedAt: Nullable(IsoDateTime),
  dispatchedAt: Nullable(IsoDateTime),
});
export type OrderView = Static<typeof Order>;

export const UpsertResponse = Type.Object({
  success: Type.Literal(true),
  action: Type.Union([Type.Literal('created'), Type.Literal('updated')]),
  data: OrderSummary,
  warnings: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Present when there is something to say: an issue of the order, or a field sent that is not an order field (it was ignored)',
    }),
  ),
  requestId: RequestId,
});

/** The batch body is checked order by order (one bad order does not fail the others). */
export const MAX_BATCH_ORDERS = 50;

export const BatchInput = Type.Object({
  orders: Type.Array(OrderInput, { maxItems: MAX_BATCH_ORDERS, description: 'At most 50 orders and 10 MB' }),
});

export const BatchResponse = BatchResult('orders', 'VALIDATION_ERROR or CONFLICT');

export const OrderParams = Type.Object({ externalId: Type.String({ minLength: 1, maxLength: 100 }) });

export const ListQuery = Type.Object({
  ...pageQuery(50, 100),
  status: Type.Optional(OrderStatusSchema),
  has_issues: Type.Optional(Type.Boolean()),
  created_since: Type.Optional(IsoDateTime),
  updated_since: Type.Optional(IsoDateTime),
});
export type ListQuery = Static<typeof ListQuery>;

export const OrderPage = Page(Order);
export const OrderResponse = Success(Order);

export const CancelResponse = Success(
  Type.Object({
    id: Type.String({ format: 'uuid' }),
    externalId: Type.String(),
    orderNumber: Type.String(),
    status: Type.Literal('CANCELLED'),
    cancelledAt: IsoDateTime,
  }),
);
