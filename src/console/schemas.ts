import { Type } from '@sinclair/typebox';
import { Packaging } from '../catalog/schemas';
import { Count, Layout, PickBody, PolicySchema, Replenishment, SlotMismatch, Wave, WAVE_STATUSES } from '../floor/schemas';
import { IsoDateTime, Success } from '../http/schemas';
import { MAX_ITEM_QUANTITY, Order, ORDER_STATUSES, OrderStatusSchema, PickedLots } from '../orders/schemas';
import { RoleSchema } from '../staff/schemas';

const ExternalId = Type.String({ minLength: 1, maxLength: 100 });

export const SignInBody = Type.Object(
  {
    warehouse: Type.String({ minLength: 1, maxLength: 63, description: "The tenant's slug" }),
    username: Type.String({ minLength: 1, maxLength: 64 }),
    pin: Type.String({ minLength: 1, maxLength: 64 }),
  },
  { examples: [{ warehouse: 'acme-outdoor', username: 'mara', pin: '482913' }] },
);

export const Me = Type.Object({
  user: Type.Object({ id: Type.String({ format: 'uuid' }), username: Type.String(), name: Type.String(), role: RoleSchema }),
  warehouse: Type.Object({ slug: Type.String(), name: Type.String() }),
});
export const MeResponse = Success(Me);
export const SignedOutResponse = Success(Type.Object({ signedOut: Type.Literal(true) }));

export const Progress = Type.Object({
  stopsDone: Type.Integer({ description: 'Stops whose every line has a pick recorded' }),
  stopsTotal: Type.Integer(),
  distanceLeft: Type.Number({ description: "From the last done stop through the stops not done, in walking order, back to the depot, in the layout's unit" }),
});

const ToteLabel = Type.String({ minLength: 1, maxLength: 100, pattern: '^\\S(.*\\S)?$', description: 'Any code printed on a reusable tote, no space at either end' });

/** The warehouse API's wave with the walk left and the labels of its totes. */
export const PickerWave = Type.Object({
  ...Wave.properties,
  progress: Progress,
  toteLabels: Type.Array(Type.Object({ tote: Type.Integer(), label: Type.String() }), { description: 'The totes labelled so far, by tote' }),
});
export const PickerWaveResponse = Success(PickerWave);
export const MaybePickerWaveResponse = Success(Type.Union([PickerWave, Type.Null()], { description: "The caller's PICKING wave; null when none" }));
export const PickerWaveList = Success(Type.Array(PickerWave));

export const ConsolePickBody = Type.Object(
  {
    orderExternalId: ExternalId,
    productExternalId: ExternalId,
    quantity: Type.Integer({ minimum: 0, maximum: MAX_ITEM_QUANTITY, description: 'What was picked there (sets it); less than planned there is a short pick' }),
    locationCode: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, description: 'The stop of the part recorded; required for a line planned at several stops' }),
    ),
    lot: PickBody.properties.lot,
    pickedLot: PickBody.properties.pickedLot,
    reason: Type.Optional(
      Type.Union([Type.Literal('not_found'), Type.Literal('damaged'), Type.Literal('other')], { description: 'Required for a short pick' }),
    ),
  },
  { examples: [{ orderExternalId: 'ORD-1042', productExternalId: 'P-1001', quantity: 1, reason: 'damaged' }] },
);

export const ToteLabelBody = Type.Object({ label: ToteLabel }, { examples: [{ label: 'T-0042' }] });

export const EmptyBody = Type.Object({}, { description: 'Nothing to send; the service chooses the orders' });

/** The public order view (GET /api/v1/public/orders/{externalId}) with each item's product name. */
export const PackOrder = Type.Object({
  ...Order.properties,
  items: Type.Array(
    Type.Object({
      productExternalId: Type.String(),
      productSku: Type.String(),
      quantity: Type.Number(),
      name: Type.Union([Type.String(), Type.Null()], { description: "The product's name; null when it is unknown" }),
      barcode: Type.Union([Type.String(), Type.Null()], { description: "The product's barcode, scanned to check a unit; null when it has none" }),
      packagings: Type.Array(Packaging, { description: "The product's packagings: a scan of one's barcode checks its quantity of units" }),
      lots: Type.Optional(PickedLots('Once a completed wave picked the item from slots of lots: the units of each lot it got, earliest expiry first')),
    }),
  ),
  tote: Type.Union([Type.Object({ number: Type.Integer(), label: Type.Union([Type.String(), Type.Null()], { description: 'While the tote holds the order' }) }), Type.Null()], {
    description: 'The tote the order was last picked into; null when it was never in a wave',
  }),
});
export const PackOrderResponse = Success(PackOrder);
export const OrderRefParams = Type.Object({
  ref: Type.String({ minLength: 1, maxLength: 255, description: 'An orderNumber, an externalId or the label of the tote holding the order, tried in that order' }),
});
export const OrderParams = Type.Object({ externalId: ExternalId });
export const ConsoleDispatchBody = Type.Object(
  {
    carrier: Type.String({ minLength: 1, maxLength: 100 }),
    trackingNumber: Type.String({ minLength: 1, maxLength: 100 }),
  },
  { examples: [{ carrier: 'DHL', trackingNumber: '00340434161094042557' }] },
);

export const WaveIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const SlottingProposalIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const WaveStatusQuery = Type.Object({ status: Type.Optional(Type.Union(WAVE_STATUSES.map((status) => Type.Literal(status)))) });

export const ProductRefParams = Type.Object({
  ref: Type.String({
    minLength: 1,
    maxLength: 255,
    description:
      "The product's externalId, its sku, its barcode or a packaging's barcode, tried in that order (case aside when neither of the first two matches), or a GS1 element string whose GTIN is its barcode or a packaging's",
  }),
});
export const ConsoleStockResponse = Success(
  Type.Object({ externalId: Type.String(), sku: Type.String(), name: Type.String(), stock: Type.Number() }),
);

const WaveSummary = Type.Object({
  id: Type.String({ format: 'uuid' }),
  number: Wave.properties.number,
  picker: Wave.properties.picker,
  progress: Progress,
  orders: Type.Integer({ description: 'Orders in the wave' }),
  orderNumbers: Type.Array(Type.String(), { description: "The wave's orders, by tote" }),
  createdAt: IsoDateTime,
});

export const AssignWaveBody = Type.Object(
  { pickerId: Type.String({ format: 'uuid', description: 'An active picker or supervisor of the warehouse' }) },
  { examples: [{ pickerId: '8c7b6a59-4837-4261-9f50-1e2d3c4b5a69' }] },
);

export const BoardResponse = Success(
  Type.Object({
    statusCounts: Type.Object(Object.fromEntries(ORDER_STATUSES.map((status) => [status, Type.Integer()]))),
    issues: Type.Array(
      Type.Object({
        externalId: Type.String(),
        orderNumber: Type.String(),
        status: OrderStatusSchema,
        issues: Type.Array(Type.Object({ code: Type.String(), message: Type.String(), productExternalId: Type.Optional(Type.String()) })),
      }),
      { description: 'Orders with open issues, oldest first, at most 50' },
    ),
    waves: Type.Array(WaveSummary, { description: 'PICKING waves, oldest first' }),
    webhooks: Type.Object({
      failing: Type.Array(
        Type.Object({
          id: Type.String({ format: 'uuid' }),
          url: Type.String(),
          consecutiveFailures: Type.Optional(Type.Integer({ description: 'Failed attempts since its last delivered one' })),
          lastError: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          lastAttemptAt: Type.Optional(Type.Union([IsoDateTime, Type.Null()])),
        }),
        { description: 'Active webhooks whose last attempt failed' },
      ),
      deadLetters: Type.Integer({ description: 'Dead letters waiting for a replay' }),
    }),
    pickers: Type.Array(Type.Object({ id: Type.String({ format: 'uuid' }), username: Type.String(), name: Type.String() }), {
      description: 'Active users who can pick (pickers and supervisors), to assign a wave to',
    }),
    slotMismatches: Type.Object(
      {
        total: Type.Integer(),
        products: Type.Array(SlotMismatch, { description: 'The first 20, by product id' }),
      },
      { description: 'Products whose slots hold other than their stock (GET /slots/mismatches of the warehouse API lists them all)' },
    ),
    replenishments: Type.Object(
      {
        total: Type.Integer({ description: 'Open tasks (OPEN and IN_PROGRESS)' }),
        tasks: Type.Array(Replenishment, { description: 'The first 5 open tasks in line' }),
      },
      { description: 'Open replenishment tasks (GET /replenishments of the warehouse API lists them all)' },
    ),
    lowFaces: Type.Object(
      {
        total: Type.Integer(),
        faces: Type.Array(
          Type.Object({
            productExternalId: Type.String(),
            sku: Type.String(),
            locationCode: Type.String(),
            quantity: Type.Number(),
            min: Type.Integer(),
            max: Type.Integer(),
            replenishing: Type.Boolean({ description: 'Whether a task is open for the face; false when no reserve slot of the product holds a unit' }),
          }),
          { description: 'The first 20, emptiest first' },
        ),
      },
      { description: 'Pick faces at or below their min' },
    ),
  }),
);

export const ReplenishmentIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

/** A task as the replenishment screen shows it. */
export const TripTask = Type.Object({
  ...Replenishment.properties,
  name: Type.String({ description: "The product's name" }),
  barcode: Type.Union([Type.String(), Type.Null()], { description: "The product's barcode, scanned to count a unit; null when it has none" }),
});
export const TripResponse = Success(
  Type.Object({
    tasks: Type.Array(TripTask, {
      description:
        "The caller's task in hand, then the first OPEN tasks in line (10 in all at most), in walking order: each task's reserve slot then its pick face, the task in hand first; tasks at a location without a place after them",
    }),
    distance: Type.Union([Type.Number(), Type.Null()], { description: "The walk of the trip, depot to depot, in the layout's unit; null while the warehouse has no layout" }),
    exact: Type.Boolean({ description: 'Whether the order is proven the shortest walk; false when the planner could not answer in time (the tasks then come first in line)' }),
    waiting: Type.Integer({ description: 'OPEN tasks not in this trip' }),
  }),
);

const Point = Type.Object({ x: Type.Number(), y: Type.Number() });
export const FloorResponse = Success(
  Type.Object({
    layout: Type.Union([Layout, Type.Null()], { description: 'Null until the warehouse describes its layout' }),
    locations: Type.Array(Type.Object({ code: Type.String(), aisle: Type.Integer(), position: Type.Integer(), level: Type.Union([Type.Integer(), Type.Null()]) })),
    waves: Type.Array(
      Type.Object({
        id: Type.String({ format: 'uuid' }),
        number: Wave.properties.number,
        picker: Wave.properties.picker,
        policy: PolicySchema,
        distance: Type.Number(),
        path: Type.Array(Point, { description: 'Corners of the walk from the depot through the stops and back, along aisles and cross aisles' }),
        stops: Type.Array(
          Type.Object({
            seq: Type.Integer(),
            locationCode: Type.String(),
            aisle: Type.Integer(),
            position: Type.Integer(),
            x: Type.Number(),
            y: Type.Number(),
            done: Type.Boolean(),
          }),
        ),
      }),
      { description: 'PICKING waves' },
    ),
  }),
);

/** A product a count expects at its location, or one scanned there: never how many (counts are blind). */
export const CountedProduct = Type.Object({
  productExternalId: Type.String(),
  sku: Type.String(),
  name: Type.String(),
  barcode: Type.Union([Type.String(), Type.Null()], { description: 'Scanned to count a unit; null when it has none' }),
  packagings: Type.Array(Packaging, { description: "A scan of one's barcode counts its quantity of units" }),
  keptByLot: Type.Boolean({ description: 'Whether a slot of it holds a lot: it is counted lot by lot (the lot typed, or read from a GS1 label)' }),
});
export const CountedProductResponse = Success(CountedProduct);
/** A count as the count screen shows it: what the records say is never sent. */
export const BlindCount = Type.Object({
  id: Count.properties.id,
  locationCode: Count.properties.locationCode,
  reason: Count.properties.reason,
  status: Count.properties.status,
  createdAt: IsoDateTime,
  products: Type.Array(CountedProduct, { description: 'The products holding a slot at the location, by externalId' }),
});
export const BlindCountResponse = Success(BlindCount);
export const BlindCountList = Success(Type.Array(BlindCount, { description: 'The first 100 open counts, by location' }));
export const CountIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
