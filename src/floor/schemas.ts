import { Type, type Static } from '@sinclair/typebox';
import { MAX_STOCK, Packaging } from '../catalog/schemas';
import { IsoDateTime, Page, Success, pageQuery } from '../http/schemas';
import { MAX_AISLES, MAX_CROSS_AISLES, MAX_POSITIONS_PER_AISLE, POLICIES } from './plan/layout';

export const SlugParams = Type.Object({ slug: Type.String() });
export const WaveParams = Type.Object({ slug: Type.String(), id: Type.String({ format: 'uuid' }) });

const Aisle = Type.Integer({ minimum: 1, maximum: MAX_AISLES, description: 'Aisle, 1 to `aisles` from the left' });
const Position = Type.Integer({ minimum: 1, maximum: MAX_POSITIONS_PER_AISLE, description: 'Position along the aisle, 1 to `positionsPerAisle` from the front' });
const Distance = Type.Number({ description: "In the layout's unit, depot to depot" });

/*
 * The layout's schemas hold its fields' types; their values (ranges, and bounds one field sets
 * another) are checked by layoutProblems, every unusable field named in one answer.
 */
const layoutFields = {
  aisles: Type.Integer({ description: 'Parallel aisles, numbered 1.. from the left', examples: [10] }),
  positionsPerAisle: Type.Integer({ description: 'Pick positions along each aisle, numbered 1.. from the front', examples: [20] }),
  aisleSpacing: Type.Number({ description: 'Between the centre lines of neighbouring aisles', examples: [3] }),
  positionSpacing: Type.Number({ description: 'Between neighbouring positions of an aisle', examples: [1.5] }),
  crossAisleOffset: Type.Number({ description: 'From the front (or back) cross aisle to the first (or last) position of an aisle', examples: [2] }),
  depotAisle: Type.Integer({ description: 'The depot stands on the front cross aisle, in line with this aisle', examples: [1] }),
};
const CrossAisles = Type.Array(
  Type.Object({
    afterPosition: Type.Integer({
      description: 'Runs between this position and the next, 1 to `positionsPerAisle` - 1; one cross aisle per position at most',
    }),
    width: Type.Number({ description: "Above 0, in the layout's unit; positions behind it stand that much further back" }),
  }),
  { maxItems: MAX_CROSS_AISLES, description: 'Middle cross aisles, each across every aisle: k of them make k+1 blocks' },
);
const layoutDescription = 'Parallel aisles between a front and a back cross aisle, cut into blocks by middle cross aisles';

export const LayoutBody = Type.Object({ ...layoutFields, crossAisles: Type.Optional(CrossAisles) }, { description: `${layoutDescription}; no cross aisles when left out` });
/** The layout as stored: its cross aisles front to back, [] when it has none. */
export const Layout = Type.Object({ ...layoutFields, crossAisles: CrossAisles }, { description: layoutDescription });
export const LayoutResponse = Success(Layout);

export const PolicySchema = Type.Union(
  POLICIES.map((policy) => Type.Literal(policy)),
  { description: 'How the picker walks; `optimal` is the shortest tour', default: 'optimal' },
);

const LocationCode = Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9-]+$', description: 'letters, digits and hyphens', examples: ['A-01-3'] });
const Level = Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'Shelf level, 1 at the floor (informative)' });

export const LocationsBody = Type.Object(
  {
    codes: Type.Optional(Type.Array(LocationCode, { maxItems: 100_000, description: 'Codes without a place (never routed)' })),
    locations: Type.Optional(
      Type.Array(Type.Object({ code: LocationCode, aisle: Aisle, position: Position, level: Type.Optional(Level) }), {
        maxItems: 100_000,
        description: 'Codes with their place on the layout',
      }),
    ),
  },
  {
    description: 'Replaces the whole set of locations with these; send `codes`, `locations` or both',
    examples: [{ locations: [{ code: 'A-01-3', aisle: 1, position: 1, level: 3 }, { code: 'B-07-1', aisle: 2, position: 7 }], codes: ['DOCK-1'] }],
  },
);
export const LocationsResponse = Success(
  Type.Object({
    codes: Type.Array(Type.String(), { description: 'Every known code, placed or not, sorted' }),
    locations: Type.Array(Type.Object({ code: Type.String(), aisle: Type.Integer(), position: Type.Integer(), level: Type.Union([Type.Integer(), Type.Null()]) }), {
      description: 'The placed codes, sorted',
    }),
  }),
);

const ExternalId = Type.String({ minLength: 1, maxLength: 100 });

const ItemPick = Type.Object({ productExternalId: Type.String(), quantity: Type.Number() });

export const RouteBody = Type.Object(
  {
    locations: Type.Optional(Type.Array(LocationCode, { minItems: 1, maxItems: 10_000, description: 'Codes to visit; one listed twice is visited once' })),
    items: Type.Optional(
      Type.Array(
        Type.Object({ productExternalId: ExternalId, quantity: Type.Integer({ minimum: 1, description: 'Units to pick, a whole number of 1 or more' }) }),
        { minItems: 1, maxItems: 10_000, description: 'Products to pick, taken from their slots; one listed twice counts once with the sum of its quantities' },
      ),
    ),
    policy: Type.Optional(PolicySchema),
  },
  {
    description: 'Send exactly one of `locations` and `items`',
    examples: [{ locations: ['B-07-1', 'A-01-3', 'DOCK-1'], policy: 'optimal' }, { items: [{ productExternalId: 'SHOE-42', quantity: 3 }] }],
  },
);
export const RouteResponse = Success(
  Type.Object({
    policy: PolicySchema,
    distance: Distance,
    exact: Type.Boolean({ description: 'Whether distance is proven the shortest walk there is (only optimal can be), over every choice of slots for `items`' }),
    stops: Type.Array(
      Type.Object({
        locationCode: Type.String(),
        aisle: Type.Integer(),
        position: Type.Integer(),
        lot: Type.Optional(Type.String({ description: "For `items`, at a slot of a lot: the lot to take (a location holding several lots is a stop per lot)" })),
        expiresOn: Type.Optional(Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'The expiry of `lot`, null when unknown' })),
        picks: Type.Optional(Type.Array(ItemPick, { description: 'For `items`: what to take here' })),
      }),
      { description: 'In walking order' },
    ),
    short: Type.Optional(Type.Array(ItemPick, { description: 'For `items`: what the slots of placed products cannot cover, by product' })),
    unplaced: Type.Array(Type.String(), {
      description: 'Not part of the route, as sent, each once: codes unknown or without a place; for `items`, products unknown, or without slots and without a placed location',
    }),
  }),
);

const SlotQuantity = Type.Integer({ minimum: 0, description: 'Units at the location, a whole number' });
const roleDescription = '`pick`: a pick face, which waves and routes for items take from; `reserve`: units that feed the faces (replenishment)';
const SlotRole = Type.Union([Type.Literal('pick'), Type.Literal('reserve')], { description: roleDescription });
/** A slot's role and bounds as sent: both bounds or neither, on a pick face only (checked by the slot rules). */
const slotRoleFields = {
  role: Type.Optional(Type.Union([Type.Literal('pick'), Type.Literal('reserve')], { description: roleDescription, default: 'pick' })),
  min: Type.Optional(
    Type.Integer({ minimum: 0, description: 'A pick face at this many units or fewer asks for a top-up (replenishment, MIN); sent with `max`, at most `max`' }),
  ),
  max: Type.Optional(Type.Integer({ minimum: 0, description: 'What the pick face holds: a top-up fills it to this; sent with `min`' })),
  lot: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'The lot the units belong to; a location may hold several lots of one product, each its own slot' })),
  expiresOn: Type.Optional(Type.String({ description: 'The day the lot expires, YYYY-MM-DD (sent with `lot`); lines take the lots that expire first' })),
};
const SlotView = Type.Object({
  productExternalId: Type.String(),
  locationCode: Type.String(),
  quantity: Type.Integer(),
  role: SlotRole,
  min: Type.Union([Type.Integer(), Type.Null()], { description: "The face's top-up bounds; null when it has none (a reserve slot never has)" }),
  max: Type.Union([Type.Integer(), Type.Null()]),
  lot: Type.Union([Type.String(), Type.Null()], { description: 'The lot of the units; null for a slot without a lot' }),
  expiresOn: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'The day the lot expires; null when unknown or without a lot' }),
});
/** Most slots a tenant holds: PUT /slots sends them all at once. */
export const MAX_SLOTS = 100_000;

export const SlotsBody = Type.Object(
  {
    slots: Type.Array(Type.Object({ productExternalId: ExternalId, locationCode: LocationCode, quantity: SlotQuantity, ...slotRoleFields }), {
      maxItems: MAX_SLOTS,
      description: 'Every slot of the warehouse: units of a product (of one lot, when given) at a placed location, each (product, location, lot) once',
    }),
  },
  {
    examples: [
      {
        slots: [
          { productExternalId: 'SHOE-42', locationCode: 'A-01-3', quantity: 4, role: 'pick', min: 2, max: 10 },
          { productExternalId: 'SHOE-42', locationCode: 'B-07-1', quantity: 80, role: 'reserve' },
        ],
      },
    ],
  },
);
export const SlotsReplaced = Success(
  Type.Object({ slots: Type.Integer({ description: 'Slots now stored' }), products: Type.Integer({ description: 'Products that have slots' }) }),
);
export const ProductSlotsParams = Type.Object({ slug: Type.String(), externalId: Type.String() });
export const ProductSlotsBody = Type.Object(
  {
    slots: Type.Array(Type.Object({ locationCode: LocationCode, quantity: SlotQuantity, ...slotRoleFields }), {
      maxItems: 10_000,
      description: "The product's slots, each (location, lot) once; [] leaves its stock at its own location",
    }),
  },
  { examples: [{ slots: [{ locationCode: 'A-01-3', quantity: 4, min: 2, max: 10 }, { locationCode: 'B-07-1', quantity: 80, role: 'reserve' }] }] },
);
export const ProductSlotsResponse = Success(Type.Array(SlotView, { description: "The product's slots as stored, by location code, then lot" }));
export const SlotPage = Page(SlotView);
export const SlotListQuery = Type.Object({ ...pageQuery(100, 1000), productExternalId: Type.Optional(ExternalId) });
export const SlotMismatch = Type.Object({
  productExternalId: Type.String(),
  sku: Type.String(),
  stock: Type.Number({ description: "The product's stock, as the catalog says" }),
  inSlots: Type.Number({ description: 'The sum of its slots' }),
});
export const SlotMismatchPage = Page(SlotMismatch);
export const SlotMismatchQuery = Type.Object(pageQuery(50, 500));

export const CreateWaveBody = Type.Object(
  {
    orders: Type.Optional(
      Type.Array(ExternalId, {
        minItems: 1,
        maxItems: 100,
        description: 'These orders, in this order (totes 1..n), whatever the limits; each must be PENDING without issues',
      }),
    ),
    maxOrders: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 8, description: 'Totes on the cart' })),
    maxItems: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 40, description: 'Units the cart carries' })),
    policy: Type.Optional(PolicySchema),
  },
  { examples: [{ maxOrders: 8, maxItems: 40 }, { orders: ['ORD-1001', 'ORD-1002'], policy: 's-shape' }] },
);
export const PickBody = Type.Object(
  {
    orderExternalId: ExternalId,
    productExternalId: ExternalId,
    quantity: Type.Number({ minimum: 0, description: 'What was picked there; at most what is planned there, less is a short pick' }),
    locationCode: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, description: 'The stop of the part recorded; required for a line planned at several stops' }),
    ),
    lot: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'The lot of the part recorded, for a line planned at one location in several lots; left out there, the part without a lot' })),
    pickedLot: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 50,
        description:
          "The lot the units were taken from, when not the part's (a scan's GS1 (10)): allowed when it has a slot at the part's location, expires no later, is takeable and holds the units; the part then names it. Ignored for a part without a lot",
      }),
    ),
    reason: Type.Optional(Type.String({ maxLength: 255, description: 'Why a line is short (damaged, not found…)' })),
  },
  {
    examples: [
      { orderExternalId: 'ORD-1001', productExternalId: 'SHOE-42', quantity: 1, reason: 'one pair damaged' },
      { orderExternalId: 'ORD-1001', productExternalId: 'SOCK-7', quantity: 2, locationCode: 'B-07-1' },
      { orderExternalId: 'ORD-1001', productExternalId: 'MILK-1', quantity: 2, locationCode: 'A-01-2', pickedLot: 'L-0419' },
    ],
  },
);

export const WAVE_STATUSES = ['PICKING', 'COMPLETED', 'RELEASED'] as const;
const WaveStatus = Type.Union(WAVE_STATUSES.map((status) => Type.Literal(status)));

const WaveLine = Type.Object({
  orderExternalId: Type.String(),
  tote: Type.Integer(),
  productExternalId: Type.String(),
  productSku: Type.String(),
  barcode: Type.Union([Type.String(), Type.Null()]),
  packagings: Type.Array(Packaging, { description: "The product's packagings: a scan of one's barcode counts its quantity of units" }),
  name: Type.Union([Type.String(), Type.Null()]),
  quantity: Type.Number({ description: 'To take at this stop: the whole line unless it is planned at several stops' }),
  orderedQuantity: Type.Number({ description: 'Ordered: the line at every stop together' }),
  lot: Type.Union([Type.String(), Type.Null()], { description: 'The lot to take here (first expiry, first out); null for a slot without a lot' }),
  expiresOn: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'The expiry of `lot`; null when unknown or without a lot' }),
  next: Type.Union([Type.Object({ locationCode: Type.String(), quantity: Type.Number() }), Type.Null()], {
    description: 'Where the line continues, and how much it takes there; null at its last stop',
  }),
  pickedQuantity: Type.Union([Type.Number(), Type.Null()], { description: 'Recorded here by POST /waves/{id}/picks; null until then' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the line was picked short, as recorded' }),
});
export type WaveLine = Static<typeof WaveLine>;

export const Wave = Type.Object({
  id: Type.String({ format: 'uuid' }),
  number: Type.Integer({
    minimum: 1,
    description: "The wave's number in its warehouse: 1, 2, 3… in the order waves are made, never reused. People name a wave by it (the console shows W-0012)",
  }),
  status: WaveStatus,
  policy: PolicySchema,
  distance: Distance,
  sShapeDistance: Type.Number({ description: 'The same picks walked S-shape, for comparison' }),
  orders: Type.Array(Type.Object({ externalId: Type.String(), orderNumber: Type.String(), tote: Type.Integer() })),
  stops: Type.Array(
    Type.Object({ seq: Type.Integer({ minimum: 1 }), locationCode: Type.String(), aisle: Type.Integer(), position: Type.Integer(), lines: Type.Array(WaveLine) }),
    { description: 'In walking order' },
  ),
  unplaced: Type.Array(WaveLine, { description: 'Lines whose product has no placed location: pick them after the route' }),
  picker: Type.Union([Type.Object({ id: Type.String({ format: 'uuid' }), username: Type.String(), name: Type.String() }), Type.Null()], {
    description: 'The console user picking the wave; null when it is not assigned to anyone',
  }),
  createdAt: IsoDateTime,
});
export type Wave = Static<typeof Wave>;
export const WaveResponse = Success(Wave);
export const WavePage = Page(Wave);
export const WaveListQuery = Type.Object({ ...pageQuery(20, 100), status: Type.Optional(WaveStatus) });

/** The cart limits of POST /waves, same defaults, for reading the plan they make. */
export const CartPlanQuery = Type.Object({ maxOrders: CreateWaveBody.properties.maxOrders, maxItems: CreateWaveBody.properties.maxItems });
export const CartPlanResponse = Success(
  Type.Object({
    carts: Type.Array(
      Type.Object({
        orders: Type.Array(
          Type.Object({
            externalId: Type.String(),
            orderNumber: Type.String(),
            priority: Type.Union([Type.String(), Type.Null()]),
            dueDate: Type.Union([IsoDateTime, Type.Null()]),
            units: Type.Number(),
          }),
          { description: 'In tote order (1..n) of the wave made from the cart' },
        ),
        units: Type.Number(),
        distance: Distance,
      }),
      { description: 'In the order they are handed out: the first is what POST /waves without `orders` takes now. Every order of the pool but the held ones in exactly one' },
    ),
    distance: Type.Number({ description: "The carts' walks added up" }),
    greedyDistance: Type.Union([Type.Number(), Type.Null()], {
      description:
        'What the same pool walks as carts made one at a time, each from what the last left; null when the plan was kept from an earlier pool that orders have since left (no greedy plan is made for it)',
    }),
    urgencyCost: Type.Union([Type.Number(), Type.Null()], {
      description:
        'What putting urgency first costs in walking: the walk of the plan less that of a plan of the same pool where only walking decides (0 when every order is equally urgent); null when greedyDistance is',
    }),
    poolSize: Type.Integer({ description: 'Orders in the plan: the most urgent PENDING orders without issues, at most 500, but those held' }),
    held: Type.Array(
      Type.Object({
        externalId: Type.String(),
        orderNumber: Type.String(),
        priority: Type.Union([Type.String(), Type.Null()]),
        dueDate: Type.Union([IsoDateTime, Type.Null()]),
        short: Type.Array(
          Type.Object({
            productExternalId: Type.String(),
            needed: Type.Number({ description: 'Units the order needs of the product' }),
            available: Type.Number({
              description: 'Units its pick faces (and reserve slots, with pickFromReserve) have left for it, after PICKING waves and the more urgent orders of the plan',
            }),
          }),
          { description: 'The products its slots cannot cover' },
        ),
      }),
      {
        description:
          'Orders of the pool on no cart: their pick faces cannot cover them. Making a wave from the pool asks for their replenishment (DEMAND, first in line); they come back once the faces hold their units. Most urgent first',
      },
    ),
  }),
);

export const REPLENISHMENT_STATUSES = ['OPEN', 'IN_PROGRESS', 'DONE', 'CANCELLED'] as const;
const ReplenishmentStatus = Type.Union(REPLENISHMENT_STATUSES.map((status) => Type.Literal(status)), {
  description: 'OPEN until a console user takes it (IN_PROGRESS; putting it back makes it OPEN again), then DONE or CANCELLED; OPEN and IN_PROGRESS are open',
});
export const Replenishment = Type.Object({
  id: Type.String({ format: 'uuid' }),
  productExternalId: Type.String(),
  sku: Type.String(),
  fromLocationCode: Type.String({ description: 'The reserve slot to take from' }),
  toLocationCode: Type.String({ description: 'The pick face to fill' }),
  lot: Type.Union([Type.String(), Type.Null()], { description: 'The lot it moves, from the reserve slot of that lot to the face\'s slot of it (first expiry, first out); null for units without a lot' }),
  expiresOn: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'The expiry of `lot` when the task was made; null when unknown or without a lot' }),
  quantity: Type.Integer({ minimum: 1, description: 'Units asked for: never more than the reserve slot held when the task was made' }),
  movedQuantity: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'Units completing moved; null until DONE' }),
  reason: Type.Union([Type.Literal('MIN'), Type.Literal('DEMAND'), Type.Literal('SHORT')], {
    description: '`MIN`: the face fell to its min (fill to max); `DEMAND`: orders wait for units the faces do not hold; `SHORT`: a short pick emptied the face',
  }),
  status: ReplenishmentStatus,
  createdAt: IsoDateTime,
  doneAt: Type.Union([IsoDateTime, Type.Null()], { description: 'When it was completed or cancelled' }),
  doneBy: Type.Union([Type.String(), Type.Null()], {
    description: "The username of the console user who holds it (IN_PROGRESS), or who completed or cancelled it; null while OPEN and through the warehouse API",
  }),
});
export const ReplenishmentResponse = Success(Replenishment);
export const ReplenishmentPage = Page(Replenishment);
export const ReplenishmentListQuery = Type.Object({ ...pageQuery(50, 500), status: Type.Optional(ReplenishmentStatus) });
export const ReplenishmentParams = Type.Object({ slug: Type.String(), id: Type.String({ format: 'uuid' }) });
export const CompleteReplenishmentBody = Type.Object(
  { quantity: Type.Integer({ minimum: 1, description: 'Units moved from the reserve slot to the pick face, a whole number of 1 or more' }) },
  { examples: [{ quantity: 12 }] },
);

export const COUNT_STATUSES = ['OPEN', 'DONE', 'CANCELLED'] as const;
const CountStatus = Type.Union(COUNT_STATUSES.map((status) => Type.Literal(status)), {
  description: 'OPEN until it is finished (DONE) or cancelled (CANCELLED); a location has at most one OPEN count',
});
export const Count = Type.Object({
  id: Type.String({ format: 'uuid' }),
  locationCode: Type.String({ description: 'The location counted: every product at it' }),
  reason: Type.Union([Type.Literal('REQUESTED'), Type.Literal('SHORT_PICK')], {
    description: '`REQUESTED`: made by POST /counts; `SHORT_PICK`: a short pick found a slot there emptier than recorded',
  }),
  status: CountStatus,
  createdAt: IsoDateTime,
  doneAt: Type.Union([IsoDateTime, Type.Null()], { description: 'When it was finished or cancelled' }),
  doneBy: Type.Union([Type.String(), Type.Null()], { description: "The console user's username who finished or cancelled it; null through the warehouse API" }),
  lines: Type.Array(
    Type.Object({
      productExternalId: Type.String(),
      sku: Type.String(),
      lot: Type.Union([Type.String(), Type.Null()], { description: 'The lot counted; null for units without a lot' }),
      recordedQuantity: Type.Integer({ description: 'What the records said stands there: the slot, less the units waves still PICKING recorded as picked there' }),
      countedQuantity: Type.Integer({ description: 'What was counted' }),
      difference: Type.Integer({ description: 'countedQuantity less recordedQuantity: what the stock changed by (never below 0)' }),
    }),
    { description: 'What finishing found, per product and lot at the location, by externalId, then lot; [] until DONE' },
  ),
});
export const CountResponse = Success(Count);
export const CountsResponse = Success(Type.Array(Count, { description: 'The open count of each location asked for, by location code' }));
export const CountPage = Page(Count);
export const CountListQuery = Type.Object({ ...pageQuery(50, 500), status: Type.Optional(CountStatus) });
export const CountParams = Type.Object({ slug: Type.String(), id: Type.String({ format: 'uuid' }) });
export const RequestCountsBody = Type.Object(
  {
    locationCodes: Type.Optional(Type.Array(LocationCode, { minItems: 1, maxItems: 1000, description: 'Placed locations to count' })),
    productExternalIds: Type.Optional(
      Type.Array(ExternalId, { minItems: 1, maxItems: 1000, description: 'Products whose every slot location is counted (every product there, not only these)' }),
    ),
  },
  { description: 'At least one of the two', examples: [{ locationCodes: ['A-05'] }, { productExternalIds: ['JAR'] }] },
);
export const CountedLines = Type.Array(
  Type.Object({
    productExternalId: ExternalId,
    quantity: Type.Integer({ minimum: 0, maximum: MAX_STOCK, description: 'Units counted at the location, a whole number of 0 or more' }),
    lot: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'The lot counted (a lot-tracked product); left out, the units without a lot' })),
    expiresOn: Type.Optional(Type.String({ description: 'The expiry of `lot`, YYYY-MM-DD, for a lot the location has no slot of yet (its new slot takes it)' })),
  }),
  {
    maxItems: 10_000,
    description: 'What was counted, each (product, lot) once; a slot at the location (a product, or a lot of one) that is not listed counts 0',
  },
);
export const FinishCountBody = Type.Object({ lines: CountedLines }, { examples: [{ lines: [{ productExternalId: 'JAR', quantity: 4 }] }] });

export const SlottingProposalBody = Type.Object(
  {
    period: Type.Optional(
      Type.Object(
        { from: IsoDateTime, to: IsoDateTime },
        { description: 'The waves completed (made) from `from` up to `to` are replayed; at most 366 days. Default: the last 30 days' },
      ),
    ),
    maxMoves: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1000, description: 'Products moved at most; the busiest first' })),
  },
  { examples: [{}, { period: { from: '2026-10-01T00:00:00Z', to: '2026-11-01T00:00:00Z' }, maxMoves: 200 }] },
);
export const SlottingProposalParams = Type.Object({ slug: Type.String(), id: Type.String({ format: 'uuid' }) });
export const SlottingProposal = Type.Object({
  id: Type.String({ format: 'uuid' }),
  createdAt: IsoDateTime,
  period: Type.Object({ from: IsoDateTime, to: IsoDateTime }),
  waves: Type.Integer({ description: "The period's completed waves, whose orders are replayed" }),
  basis: Type.Union(
    [
      Type.Object({
        orders: Type.Integer({ description: "The period's orders replayed: those of its completed waves" }),
        maxOrders: Type.Integer({ description: "Orders per cart: the median of the period's waves" }),
        maxItems: Type.Integer({ description: "Units per cart: the most the period's fullest wave carried" }),
        summary: Type.String({ description: 'What the walking figures are, in words' }),
      }),
      Type.Null(),
    ],
    {
      description:
        "What the walking figures are: the period's orders, in the order they were picked, planned into carts (in pools of 200) again for each placement as the plan of carts starts its carts, each cart walked by its exact route. Null for a proposal that replayed the waves as they were made, the same orders on the same carts, which favours today's placement",
    },
  ),
  moves: Type.Array(
    Type.Object({
      productExternalId: Type.String(),
      sku: Type.String(),
      name: Type.String(),
      from: Type.String({ description: 'Location code it stands at' }),
      to: Type.String({ description: 'Location code it moves to' }),
      picks: Type.Integer({ description: 'Orders of the period that picked it' }),
    }),
    { description: 'Products to move, by how much nearer the depot they come times their picks, most first; the moves only exchange products between the locations they hold' },
  ),
  walkingBefore: Type.Number({ description: "The period's orders replayed (see basis) with the products where they stand" }),
  walkingAfter: Type.Number({ description: 'The same orders replayed with every move made; never more than walkingBefore' }),
  saving: Type.Number({ description: 'walkingBefore - walkingAfter' }),
  savingPercent: Type.Number({ description: 'The saving as a share of walkingBefore, in percent (two decimals)' }),
  savingByMoves: Type.Array(
    Type.Object({
      moves: Type.Integer({ description: 'Products moved' }),
      walking: Type.Number({ description: 'The orders replayed with these moves made' }),
      savingPercent: Type.Number({ description: 'Its saving as a share of walkingBefore, in percent (two decimals)' }),
    }),
    {
      description:
        "How the saving grows with the moves: the proposal's placement limited to about 10%, 25%, 50% and 75% of its moves (the busiest products, as `maxMoves` limits them), each replayed, fewest first; the last point is the proposal itself. Propose again with `maxMoves` to stop where the moves stop paying. Empty when nothing moves",
    },
  ),
  appliedAt: Type.Union([IsoDateTime, Type.Null()]),
  applied: Type.Union([
    Type.Object({
      moved: Type.Integer(),
      skipped: Type.Array(Type.Object({ productExternalId: Type.String(), reason: Type.String() }), { description: 'Moves left out: the product changed since the proposal, or its new location has no place now' }),
    }),
    Type.Null(),
  ]),
});
export const SlottingProposalResponse = Success(SlottingProposal);

export const LotOrdersParams = Type.Object({ slug: Type.String(), productExternalId: Type.String(), lot: Type.String({ minLength: 1, maxLength: 50 }) });
export const LotOrderPage = Page(
  Type.Object({
    orderExternalId: Type.String(),
    orderNumber: Type.String(),
    quantity: Type.Number({ description: 'Units of the lot the order got (picks of completed waves)' }),
  }),
);
export const LotOrdersQuery = Type.Object(pageQuery(50, 500));
export const ExpiringLotPage = Page(
  Type.Object({
    productExternalId: Type.String(),
    sku: Type.String(),
    lot: Type.String(),
    expiresOn: Type.String({ format: 'date' }),
    quantity: Type.Integer({ description: 'Units of the lot at its slots' }),
    locationCodes: Type.Array(Type.String(), { description: 'Where its slots stand' }),
  }),
);
export const ExpiringLotsQuery = Type.Object({
  ...pageQuery(50, 500),
  expiringWithinDays: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 36_500, default: 30, description: 'Lots expiring on or before today (UTC) plus this many days; expired lots included' }),
  ),
});
