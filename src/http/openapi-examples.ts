/**
 * Examples for the OpenAPI document, by operationId: the request body and the success answers of
 * one plausible integration. The document's lint checks each against its schema, so an example
 * that drifts from its route fails the test suite.
 */

export interface OperationExamples {
  request?: unknown;
  responses?: Record<string, unknown>;
}

const requestId = '4f9c2b1e-8d3a-4c67-9b2e-1a5f7d3c9e80';
const ok = (data: unknown) => ({ success: true, data, requestId });
const page = (data: unknown[]) => ({
  success: true,
  data,
  pagination: { limit: 50, hasMore: true, nextCursor: 'WyIwMTkwYTZjNC04ZjFlLTdjM2EtOWIyZS0xYTVmN2QzYzllODAiLDEzNDJd._gSV8xahKPR047crmcSLfH_dL-Ng5QHKsPFcZBrU3Gs', total: 1342 },
  requestId,
});

const productInput = {
  externalId: 'P-1001',
  sku: 'MUG-RED-12',
  name: 'Red ceramic mug, 12 oz',
  stock: 240,
  locationCode: 'A-03-2',
  price: 8.9,
  weight: 0.35,
  length: 12,
  width: 9,
  height: 10,
  barcode: '4006381333931',
  category: 'Kitchen',
  supplier: 'Ceramica Nord',
  brand: 'Hearth',
  isActive: true,
  isCombo: false,
  imageUrl: 'https://cdn.example.com/p/mug-red-12.jpg',
  metadata: { color: 'red', packSize: 1 },
  lotTracked: false,
  packagings: [{ name: 'case', quantity: 12, barcode: '14006381333938' }],
};
const product = {
  id: '0b7d6f0e-3c1a-4f7e-9a52-6c2d8e1f4a90',
  ...productInput,
  createdAt: '2026-11-20T08:12:45Z',
  updatedAt: '2026-11-23T09:15:00Z',
};
const productUpsert = (action: 'created' | 'updated') => ({
  success: true,
  action,
  data: { id: product.id, externalId: product.externalId, sku: product.sku },
  warnings: [],
  requestId,
});

const orderInput = {
  externalId: 'ORD-1042',
  orderNumber: 'WEB-2026-1042',
  items: [
    { productExternalId: 'P-1001', productSku: 'MUG-RED-12', quantity: 2 },
    { productExternalId: 'P-1007', productSku: 'TEA-EARL-100', quantity: 1 },
  ],
  priority: 'high',
  channel: 'webshop',
  orderDate: '2026-11-23T09:02:11Z',
  dueDate: '2026-11-24',
  shippingMethod: 'express',
  shippingAddress: 'Hauptstrasse 12, 10115 Berlin, DE',
  notes: 'Gift wrap, please',
  customer: { externalId: 'C-5531', name: 'Mara Jensen', email: 'mara.jensen@example.com', phone: '+49 30 1234567' },
  metadata: { campaign: 'winter-sale' },
};
const orderSummary = {
  id: '7c1e2d3f-5a6b-4c8d-9e0f-1a2b3c4d5e6f',
  externalId: orderInput.externalId,
  orderNumber: orderInput.orderNumber,
  status: 'PENDING',
  hasIssues: false,
  itemsCount: 2,
  unresolvedProducts: [],
  issues: [],
};
const order = (changes: Record<string, unknown> = {}) => ({
  ...orderSummary,
  items: orderInput.items,
  customer: orderInput.customer,
  priority: 'high',
  channel: 'webshop',
  orderDate: '2026-11-23T09:02:11Z',
  dueDate: '2026-11-24T00:00:00Z',
  shippingMethod: 'express',
  shippingAddress: orderInput.shippingAddress,
  notes: orderInput.notes,
  metadata: orderInput.metadata,
  carrier: null,
  trackingNumber: null,
  createdAt: '2026-11-23T09:02:12Z',
  updatedAt: '2026-11-23T09:02:12Z',
  cancelledAt: null,
  pickedAt: null,
  dispatchedAt: null,
  ...changes,
});
const orderUpsert = (action: 'created' | 'updated') => ({ success: true, action, data: orderSummary, warnings: [], requestId });

const batchResult = (collection: 'products' | 'orders', failure: Record<string, unknown>) => ({
  success: true,
  data: { successCount: 2, createdCount: 1, updatedCount: 1, errorCount: 1 },
  errors: [{ index: 2, ...failure }],
  warnings: collection === 'products' ? [{ index: 1, externalId: 'P-1002', warning: 'locationCode "Z-99" is not a known location' }] : [],
  requestId,
});

const webhookEvents = ['order.status_changed', 'order.issue_detected'];
const webhook = {
  id: '3d8f1a2b-6c4e-4f7a-8b9c-0d1e2f3a4b5c',
  url: 'https://shop.example.com/hooks/pickport',
  events: webhookEvents,
  isActive: true,
  createdAt: '2026-11-20T10:00:00Z',
  updatedAt: '2026-11-22T16:30:00Z',
};
const webhookSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const delivery = (status: string, changes: Record<string, unknown> = {}) => ({
  id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  eventId: 'e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b',
  event: 'order.status_changed',
  status,
  attempt: 1,
  statusCode: 200,
  durationMs: 184,
  error: null,
  responseBody: 'ok',
  test: false,
  createdAt: '2026-11-23T09:05:00Z',
  nextAttemptAt: null,
  ...changes,
});

const tenant = { id: '5f6e7d8c-9b0a-4c1d-8e2f-3a4b5c6d7e8f', slug: 'acme-outdoor', name: 'Acme Outdoor GmbH', createdAt: '2026-11-01T12:00:00Z' };
const apiKey = {
  id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  name: 'Webshop sync',
  prefix: 'pk_live_8Hq2',
  permissions: ['products:read', 'products:write', 'orders:read', 'orders:write', 'webhooks:manage'],
  rateLimitPerMinute: 100,
  dailyLimit: 10000,
  allowedIps: null,
  expiresAt: null,
  createdAt: '2026-11-01T12:05:00Z',
};
const issuedKey = { ...apiKey, key: 'pk_live_8Hq2vN3xR7tL0aZ5cE9wY1uJ4kM6bD2fG8sP0hQ' };
const listedKey = (status: 'active' | 'revoked', revokedAt: string | null = null) => ({ ...apiKey, revokedAt, status });

const layout = { aisles: 12, positionsPerAisle: 40, aisleSpacing: 3, positionSpacing: 1.2, crossAisleOffset: 2, depotAisle: 1, crossAisles: [{ afterPosition: 20, width: 3 }] };
const heatMap = {
  from: '2026-11-23T00:00:00.000Z',
  to: '2026-11-24T00:00:00.000Z',
  layout,
  locations: [
    { code: 'A-03-2', aisle: 1, position: 3, picks: 42, units: 57 },
    { code: 'B-11-1', aisle: 2, position: 11, picks: 9, units: 9 },
  ],
  unplaced: { picks: 2, units: 3 },
};
const insightCharts = {
  from: '2026-11-23T08:00:00.000Z',
  to: '2026-11-23T10:00:00.000Z',
  bucket: 'hour',
  points: [
    {
      start: '2026-11-23T08:00:00.000Z', received: 31, picked: 24, packed: 20, dispatched: 18, linesPicked: 96, unitsPicked: 131, pickerHours: 2,
      linesPerPickerHour: 48, unitsPerPickerHour: 65.5, wavesCompleted: 4, walkPerOrder: 21.4, sShapeWalkPerOrder: 29.9, shortPicks: { DAMAGED: 1 },
    },
    {
      start: '2026-11-23T09:00:00.000Z', received: 28, picked: 30, packed: 27, dispatched: 22, linesPicked: 118, unitsPicked: 160, pickerHours: 3,
      linesPerPickerHour: 39.33, unitsPerPickerHour: 53.33, wavesCompleted: 5, walkPerOrder: 19.8, sShapeWalkPerOrder: 27.1, shortPicks: { NOT_FOUND: 2, DAMAGED: 1 },
    },
  ],
  shortReasons: ['DAMAGED', 'NOT_FOUND'],
  pickers: [
    { id: '019a5b6c-0000-7000-8000-00000000a001', name: 'Ana Costa', linesPicked: 130, unitsPicked: 176, pickerHours: 3, linesPerPickerHour: 43.33 },
    { id: '019a5b6c-0000-7000-8000-00000000a002', name: 'Ben Okafor', linesPicked: 84, unitsPicked: 115, pickerHours: 2, linesPerPickerHour: 42 },
  ],
};
const locations = {
  codes: ['A-03-2', 'B-11-1', 'C-27-3'],
  locations: [
    { code: 'A-03-2', aisle: 1, position: 3, level: 2 },
    { code: 'B-11-1', aisle: 2, position: 11, level: 1 },
    { code: 'C-27-3', aisle: 3, position: 27, level: null },
  ],
};
const slots = [
  { productExternalId: 'P-1001', locationCode: 'A-03-2', quantity: 36, role: 'pick', min: 12, max: 60, lot: null, expiresOn: null },
  { productExternalId: 'P-1001', locationCode: 'C-27-3', quantity: 200, role: 'reserve', min: null, max: null, lot: null, expiresOn: null },
  { productExternalId: 'P-1007', locationCode: 'B-11-1', quantity: 50, role: 'pick', min: null, max: null, lot: 'L2611', expiresOn: '2027-05-31' },
  { productExternalId: 'P-1007', locationCode: 'B-11-1', quantity: 30, role: 'pick', min: null, max: null, lot: 'L2612', expiresOn: '2027-06-30' },
];
const waveLine = (orderExternalId: string, tote: number, productExternalId: string, productSku: string, name: string, quantity: number) => ({
  orderExternalId,
  tote,
  productExternalId,
  productSku,
  barcode: null,
  packagings: [] as { name: string; quantity: number; barcode?: string }[],
  name,
  quantity,
  orderedQuantity: quantity,
  lot: null as string | null,
  expiresOn: null as string | null,
  next: null as { locationCode: string; quantity: number } | null,
  pickedQuantity: null as number | null,
  reason: null as string | null,
});
const wave = (status: 'PICKING' | 'COMPLETED' | 'RELEASED', picked: boolean) => ({
  id: '6e5d4c3b-2a19-4f08-8e7d-6c5b4a392817',
  number: 12,
  status,
  policy: 's-shape',
  distance: 118.4,
  sShapeDistance: 118.4,
  orders: [
    { externalId: 'ORD-1042', orderNumber: 'WEB-2026-1042', tote: 1 },
    { externalId: 'ORD-1043', orderNumber: 'WEB-2026-1043', tote: 2 },
  ],
  stops: [
    { seq: 1, locationCode: 'A-03-2', aisle: 1, position: 3, lines: [waveLine('ORD-1042', 1, 'P-1001', 'MUG-RED-12', 'Red ceramic mug, 12 oz', 2)] },
    { seq: 2, locationCode: 'B-11-1', aisle: 2, position: 11, lines: [waveLine('ORD-1043', 2, 'P-1007', 'TEA-EARL-100', 'Earl Grey tea, 100 bags', 1)] },
  ].map((stop) => ({ ...stop, lines: stop.lines.map((line) => ({ ...line, pickedQuantity: picked ? line.quantity : null })) })),
  unplaced: [],
  picker: null as { id: string; username: string; name: string } | null,
  createdAt: '2026-11-23T09:30:00Z',
});

const picking = wave('PICKING', false);
const firstLinePicked = {
  ...picking,
  stops: picking.stops.map((stop, index) => (index === 0 ? { ...stop, lines: stop.lines.map((line) => ({ ...line, pickedQuantity: line.quantity })) } : stop)),
};

const staffUser = { id: '8c7b6a59-4837-4261-9f50-1e2d3c4b5a69', username: 'mara', name: 'Mara Jensen', role: 'picker', disabled: false, createdAt: '2026-11-20T07:00:00Z' };
const me = { user: { id: staffUser.id, username: 'mara', name: 'Mara Jensen', role: 'picker' }, warehouse: { slug: tenant.slug, name: tenant.name } };
const picker = { id: staffUser.id, username: 'mara', name: 'Mara Jensen' };
const pickerWave = (base: ReturnType<typeof wave>, stopsDone: number, distanceLeft: number, toteLabels: { tote: number; label: string }[] = []) => ({
  ...base,
  picker,
  progress: { stopsDone, stopsTotal: base.stops.length, distanceLeft },
  toteLabels,
});
const packOrder = (changes: Record<string, unknown>, label: string | null = 'T-0042') => {
  const view = order({ pickedAt: '2026-11-23T10:20:00Z', ...changes });
  return {
    ...view,
    items: view.items.map((item, index) => ({
      ...item,
      name: index === 0 ? 'Red ceramic mug, 12 oz' : 'Earl Grey tea, 100 bags',
      barcode: index === 0 ? '4006381333931' : null,
      packagings: index === 0 ? productInput.packagings : [],
    })),
    tote: { number: 1, label },
  };
};
const settings = { toteLabels: true, confirmLocation: true, packOnLastScan: false, pickFromReserve: false, minShelfLifeDays: 0 };

const slottingRequest = { period: { from: '2026-10-01T00:00:00Z', to: '2026-11-01T00:00:00Z' }, maxMoves: 200 };
const slottingProposal = {
  id: '0193a2c4-7f10-7c3e-9a41-5b2d8e6f1a20',
  createdAt: '2026-11-01T06:00:00.000Z',
  period: { from: '2026-10-01T00:00:00.000Z', to: '2026-11-01T00:00:00.000Z' },
  waves: 412,
  basis: {
    orders: 3296,
    maxOrders: 8,
    maxItems: 60,
    summary: "The period's 3,296 orders, in the order they were picked, planned into carts of at most 8 orders and 60 units again for each placement, each cart walked by its exact route",
  },
  moves: [
    { productExternalId: 'P-1001', sku: 'MUG-RED-12', name: 'Red ceramic mug, 12 oz', from: 'D-14-2', to: 'A-02-1', picks: 96 },
    { productExternalId: 'P-2210', sku: 'CANDLE-XL', name: 'Pillar candle, XL', from: 'A-02-1', to: 'D-14-2', picks: 1 },
  ],
  walkingBefore: 48210,
  walkingAfter: 44962,
  saving: 3248,
  savingPercent: 6.74,
  savingByMoves: [
    { moves: 1, walking: 45310, savingPercent: 6.02 },
    { moves: 2, walking: 44962, savingPercent: 6.74 },
  ],
  appliedAt: null,
  applied: null,
};
const appliedProposal = { ...slottingProposal, appliedAt: '2026-11-01T06:05:00.000Z', applied: { moved: 2, skipped: [] } };
const cartPlan = {
  carts: [
    {
      orders: [
        { externalId: 'ORD-1003', orderNumber: '1003', priority: 'urgent', dueDate: null, units: 2 },
        { externalId: 'ORD-1001', orderNumber: '1001', priority: null, dueDate: '2026-11-25T00:00:00.000Z', units: 3 },
      ],
      units: 5,
      distance: 31,
    },
    { orders: [{ externalId: 'ORD-1002', orderNumber: '1002', priority: 'low', dueDate: null, units: 1 }], units: 1, distance: 22 },
  ],
  distance: 53,
  greedyDistance: 57,
  urgencyCost: 0,
  poolSize: 3,
  held: [
    {
      externalId: 'ORD-1004',
      orderNumber: '1004',
      priority: 'high',
      dueDate: null,
      short: [{ productExternalId: 'P-1001', needed: 40, available: 36 }],
    },
  ],
};
const replenishment = {
  id: '019a5b70-1c2d-7e3f-8a4b-5c6d7e8f9a01',
  productExternalId: 'P-1001',
  sku: 'MUG-RED-12',
  fromLocationCode: 'C-27-3',
  toLocationCode: 'A-03-2',
  lot: null as string | null,
  expiresOn: null as string | null,
  quantity: 24,
  movedQuantity: null as number | null,
  reason: 'DEMAND',
  status: 'OPEN',
  createdAt: '2026-11-23T09:31:00.000Z',
  doneAt: null as string | null,
  doneBy: null as string | null,
};

const count = {
  id: '019a5b80-4d5e-7f60-8a4b-5c6d7e8f9a02',
  locationCode: 'A-03-2',
  reason: 'REQUESTED',
  status: 'OPEN',
  createdAt: '2026-11-23T10:05:00.000Z',
  doneAt: null as string | null,
  doneBy: null as string | null,
  lines: [] as object[],
};
const finishedCount = {
  ...count,
  status: 'DONE',
  doneAt: '2026-11-23T10:20:00.000Z',
  lines: [{ productExternalId: 'P-1001', sku: 'MUG-RED-12', lot: null, recordedQuantity: 12, countedQuantity: 10, difference: -2 }],
};
const countedProduct = { productExternalId: 'P-1001', sku: 'MUG-RED-12', name: 'Red mug, 12 oz', barcode: '4006381333931', packagings: productInput.packagings, keptByLot: false };
const blindCount = { id: count.id, locationCode: count.locationCode, reason: count.reason, status: 'OPEN', createdAt: count.createdAt, products: [countedProduct] };

const expiringLots = [{ productExternalId: 'P-1007', sku: 'YOGURT-500', lot: 'L2611', expiresOn: '2027-05-31', quantity: 50, locationCodes: ['B-11-1'] }];

export const EXAMPLES: Record<string, OperationExamples> = {
  getHealth: {
    responses: {
      200: { status: 'ok', version: '1.0.0', checks: { database: 'ok' }, requestId },
      503: { status: 'unavailable', version: '1.0.0', checks: { database: 'error' }, requestId },
    },
  },
  getLiveness: { responses: { 200: { status: 'live', requestId } } },
  getReadiness: {
    responses: {
      200: { status: 'ready', checks: { database: { status: 'ok' }, migrations: { status: 'ok' }, planner: { status: 'ok' } }, requestId },
      503: {
        status: 'unavailable',
        checks: { database: { status: 'ok' }, migrations: { status: 'ok' }, planner: { status: 'error', message: '0 of 3 planner threads running' } },
        requestId,
      },
    },
  },
  upsertProduct: { request: productInput, responses: { 200: productUpsert('updated'), 201: productUpsert('created') } },
  upsertProductBatch: {
    request: { products: [productInput, { externalId: 'P-1002', sku: 'MUG-BLU-12', name: 'Blue ceramic mug, 12 oz', stock: 120, locationCode: 'Z-99' }] },
    responses: {
      200: batchResult('products', { externalId: 'P-1003', code: 'DUPLICATE_SKU', error: 'sku "MUG-RED-12" is claimed by products[0] of this batch' }),
    },
  },
  getProduct: { responses: { 200: ok(product) } },
  listProducts: { responses: { 200: page([product]) } },
  upsertOrder: { request: orderInput, responses: { 200: orderUpsert('updated'), 201: orderUpsert('created') } },
  upsertOrderBatch: {
    request: { orders: [orderInput] },
    responses: {
      200: batchResult('orders', {
        externalId: 'ORD-1044',
        code: 'VALIDATION_ERROR',
        error: 'items[0].quantity must be >= 1',
        details: [{ field: 'items[0].quantity', message: 'must be >= 1' }],
      }),
    },
  },
  getOrder: { responses: { 200: ok(order()) } },
  listOrders: { responses: { 200: page([order()]) } },
  cancelOrder: {
    responses: {
      200: ok({ id: orderSummary.id, externalId: orderSummary.externalId, orderNumber: orderSummary.orderNumber, status: 'CANCELLED', cancelledAt: '2026-11-23T10:40:00Z' }),
    },
  },
  createWebhook: {
    request: { url: webhook.url, events: webhookEvents, secret: webhookSecret },
    responses: { 201: ok({ id: webhook.id, url: webhook.url, events: webhookEvents, isActive: true, createdAt: webhook.createdAt, secret: webhookSecret }) },
  },
  listWebhooks: { responses: { 200: ok([webhook]) } },
  getWebhook: { responses: { 200: ok(webhook) } },
  updateWebhook: { request: { events: [...webhookEvents, 'product.stock_updated'] }, responses: { 200: ok({ ...webhook, events: [...webhookEvents, 'product.stock_updated'] }) } },
  deleteWebhook: { responses: { 200: ok({ id: webhook.id, deleted: true }) } },
  rotateWebhookSecret: {
    request: { secret: 'whsec_Qm3Zp7Ty2Vb9Nc4Xk8Lr1Hs6Wd0Fg5Ja', overlapSeconds: 86400 },
    responses: { 200: ok({ ...webhook, secret: 'whsec_Qm3Zp7Ty2Vb9Nc4Xk8Lr1Hs6Wd0Fg5Ja', previousSecretExpiresAt: '2026-11-24T16:30:00Z' }) },
  },
  testWebhook: {
    request: { event: 'order.status_changed' },
    responses: { 200: ok({ delivered: true, statusCode: 200, durationMs: 184, error: null, deliveryId: delivery('delivered').id, eventId: delivery('delivered').eventId }) },
  },
  replayDeadLetters: { request: { from: '2026-11-22T00:00:00Z', to: '2026-11-23T00:00:00Z', event: 'order.status_changed' }, responses: { 200: ok({ replayed: 12 }) } },
  listDeliveries: { responses: { 200: page([delivery('delivered')]) } },
  listDeadLetters: {
    responses: {
      200: page([delivery('dead_letter', { attempt: 6, statusCode: 502, durationMs: 3011, error: 'HTTP_STATUS', responseBody: 'Bad Gateway' })]),
    },
  },
  createTenant: { request: { slug: tenant.slug, name: tenant.name }, responses: { 201: ok(tenant) } },
  listTenants: { responses: { 200: ok([tenant]) } },
  issueApiKey: {
    request: { name: apiKey.name, permissions: apiKey.permissions, rateLimitPerMinute: 100, dailyLimit: 10000 },
    responses: { 201: ok(issuedKey) },
  },
  listApiKeys: { responses: { 200: ok([listedKey('active')]) } },
  revokeApiKey: { responses: { 200: ok(listedKey('revoked', '2026-11-23T11:00:00Z')) } },
  rotateApiKey: { responses: { 201: ok({ ...issuedKey, id: '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e', prefix: 'pk_live_T4nW', key: 'pk_live_T4nW8pQ1sX6zC3vB9mK2jH7gF5dS0aL4eR1yU' }) } },
  startPicking: { responses: { 200: ok(order({ status: 'IN_PICKING', updatedAt: '2026-11-23T10:00:00Z' })) } },
  completePicking: {
    request: { lines: [{ productExternalId: 'P-1001', pickedQuantity: 2 }, { productExternalId: 'P-1007', pickedQuantity: 1 }] },
    responses: { 200: ok(order({ status: 'PICKED', updatedAt: '2026-11-23T10:20:00Z', pickedAt: '2026-11-23T10:20:00Z' })) },
  },
  packOrder: { responses: { 200: ok(order({ status: 'PACKED', updatedAt: '2026-11-23T10:35:00Z', pickedAt: '2026-11-23T10:20:00Z' })) } },
  dispatchOrder: {
    request: { carrier: 'DHL', trackingNumber: '00340434161094042557' },
    responses: {
      200: ok(
        order({
          status: 'DISPATCHED',
          carrier: 'DHL',
          trackingNumber: '00340434161094042557',
          updatedAt: '2026-11-23T14:00:00Z',
          pickedAt: '2026-11-23T10:20:00Z',
          dispatchedAt: '2026-11-23T14:00:00Z',
        }),
      ),
    },
  },
  setProductStock: {
    request: { delta: -3 },
    responses: { 200: ok({ productId: product.id, externalId: product.externalId, sku: product.sku, previousStock: 240, stock: 237 }) },
  },
  putLayout: { request: layout, responses: { 200: ok(layout) } },
  getLayout: { responses: { 200: ok(layout) } },
  putLocations: { request: { locations: locations.locations }, responses: { 200: ok(locations) } },
  listLocations: { responses: { 200: ok(locations) } },
  planRoute: {
    request: { locations: ['C-27-3', 'A-03-2', 'B-11-1'], policy: 's-shape' },
    responses: {
      200: ok({
        policy: 's-shape',
        distance: 164.8,
        exact: false,
        stops: [
          { locationCode: 'A-03-2', aisle: 1, position: 3 },
          { locationCode: 'B-11-1', aisle: 2, position: 11 },
          { locationCode: 'C-27-3', aisle: 3, position: 27 },
        ],
        unplaced: [],
      }),
    },
  },
  createWave: { request: { maxOrders: 8, maxItems: 60, policy: 's-shape' }, responses: { 201: ok(picking) } },
  listWaves: { responses: { 200: page([picking]) } },
  getWave: { responses: { 200: ok(picking) } },
  getCartPlan: { responses: { 200: ok(cartPlan) } },
  getConsoleCartPlan: { responses: { 200: ok(cartPlan) } },
  createSlottingProposal: { request: slottingRequest, responses: { 201: ok(slottingProposal) } },
  getSlottingProposal: { responses: { 200: ok(slottingProposal) } },
  applySlottingProposal: { responses: { 200: ok(appliedProposal) } },
  createConsoleSlottingProposal: { request: slottingRequest, responses: { 201: ok(slottingProposal) } },
  applyConsoleSlottingProposal: { responses: { 200: ok(appliedProposal) } },
  putSlots: {
    request: {
      slots: [
        { productExternalId: 'P-1001', locationCode: 'A-03-2', quantity: 36, min: 12, max: 60 },
        { productExternalId: 'P-1001', locationCode: 'C-27-3', quantity: 200, role: 'reserve' },
        { productExternalId: 'P-1007', locationCode: 'B-11-1', quantity: 80 },
      ],
    },
    responses: { 200: ok({ slots: 3, products: 2 }) },
  },
  listSlots: { responses: { 200: page(slots) } },
  listExpiringLots: { responses: { 200: page(expiringLots) } },
  listConsoleExpiringLots: { responses: { 200: page(expiringLots) } },
  listLotOrders: { responses: { 200: page([{ orderExternalId: 'ORD-1001', orderNumber: 'SO-1001', quantity: 2 }]) } },
  listSlotMismatches: { responses: { 200: page([{ productExternalId: 'P-1001', sku: 'MUG-RED-12', stock: 240, inSlots: 236 }]) } },
  putProductSlots: {
    request: { slots: [{ locationCode: 'A-03-2', quantity: 36, min: 12, max: 60 }, { locationCode: 'C-27-3', quantity: 200, role: 'reserve' }] },
    responses: { 200: ok(slots.slice(0, 2)) },
  },
  recordPick: { request: { orderExternalId: 'ORD-1042', productExternalId: 'P-1001', quantity: 2, locationCode: 'A-03-2' }, responses: { 200: ok(firstLinePicked) } },
  completeWave: { responses: { 200: ok(wave('COMPLETED', true)) } },
  releaseWave: { responses: { 200: ok(wave('RELEASED', false)) } },
  createUser: { request: { username: 'mara', name: 'Mara Jensen', role: 'picker', pin: '482913' }, responses: { 201: ok(staffUser) } },
  listUsers: { responses: { 200: ok([staffUser]) } },
  disableUser: { responses: { 200: ok({ ...staffUser, disabled: true }) } },
  setUserPin: { request: { pin: '975310' }, responses: { 200: ok(staffUser) } },
  setUserRole: { request: { role: 'packer' }, responses: { 200: ok({ ...staffUser, role: 'packer' }) } },
  signIn: { request: { warehouse: tenant.slug, username: 'mara', pin: '482913' }, responses: { 200: ok(me) } },
  getSession: { responses: { 200: ok(me) } },
  signOut: { responses: { 200: ok({ signedOut: true }) } },
  listReplenishments: { responses: { 200: page([replenishment]) } },
  getReplenishment: { responses: { 200: ok(replenishment) } },
  completeReplenishment: {
    request: { quantity: 24 },
    responses: { 200: ok({ ...replenishment, status: 'DONE', movedQuantity: 24, doneAt: '2026-11-23T09:52:00.000Z' }) },
  },
  cancelReplenishment: { responses: { 200: ok({ ...replenishment, status: 'CANCELLED', doneAt: '2026-11-23T09:40:00.000Z' }) } },
  getReplenishmentTrip: {
    responses: {
      200: ok({
        tasks: [{ ...replenishment, status: 'IN_PROGRESS', doneBy: 'mara', name: 'Red mug 12 oz', barcode: '4006381333931' }],
        distance: 84.5,
        exact: true,
        waiting: 0,
      }),
    },
  },
  takeReplenishment: { responses: { 200: ok({ ...replenishment, status: 'IN_PROGRESS', doneBy: 'mara' }) } },
  putBackReplenishment: { responses: { 200: ok(replenishment) } },
  completeConsoleReplenishment: {
    request: { quantity: 24 },
    responses: { 200: ok({ ...replenishment, status: 'DONE', movedQuantity: 24, doneAt: '2026-11-23T09:52:00.000Z', doneBy: 'mara' }) },
  },
  cancelConsoleReplenishment: { responses: { 200: ok({ ...replenishment, status: 'CANCELLED', doneAt: '2026-11-23T09:40:00.000Z', doneBy: 'mara' }) } },
  requestCounts: { request: { locationCodes: ['A-03-2'] }, responses: { 201: ok([count]), 200: ok([{ ...count, reason: 'SHORT_PICK' }]) } },
  listCounts: { responses: { 200: page([count]) } },
  getCount: { responses: { 200: ok(finishedCount) } },
  finishCount: { request: { lines: [{ productExternalId: 'P-1001', quantity: 10 }] }, responses: { 200: ok(finishedCount) } },
  cancelCount: { responses: { 200: ok({ ...count, status: 'CANCELLED', doneAt: '2026-11-23T10:12:00.000Z' }) } },
  listOpenCounts: { responses: { 200: ok([blindCount]) } },
  findCountedProduct: { responses: { 200: ok(countedProduct) } },
  finishMyCount: { request: { lines: [{ productExternalId: 'P-1001', quantity: 10 }] }, responses: { 200: ok({ ...blindCount, status: 'DONE' }) } },
  getSettings: { responses: { 200: ok(settings) } },
  putSettings: { request: { toteLabels: true }, responses: { 200: ok(settings) } },
  getConsoleSettings: { responses: { 200: ok(settings) } },
  changeConsoleSettings: { request: { toteLabels: true }, responses: { 200: ok(settings) } },
  getMyWave: { responses: { 200: ok(pickerWave(picking, 0, 118.4)) } },
  labelMyTote: { request: { label: 'T-0042' }, responses: { 200: ok(pickerWave(picking, 0, 118.4, [{ tote: 1, label: 'T-0042' }])) } },
  startMyWave: { request: {}, responses: { 200: ok(pickerWave(firstLinePicked, 1, 96.4)), 201: ok(pickerWave(picking, 0, 118.4)) } },
  recordMyPick: {
    request: { orderExternalId: 'ORD-1042', productExternalId: 'P-1001', quantity: 2, locationCode: 'A-03-2' },
    responses: { 200: ok(pickerWave(firstLinePicked, 1, 96.4)) },
  },
  completeMyWave: { request: {}, responses: { 200: ok(pickerWave(wave('COMPLETED', true), 2, 18.2)) } },
  findPackOrder: { responses: { 200: ok(packOrder({ status: 'PICKED', updatedAt: '2026-11-23T10:20:00Z' })) } },
  markPacked: { responses: { 200: ok(packOrder({ status: 'PACKED', updatedAt: '2026-11-23T10:35:00Z' }, null)) } },
  dispatchPacked: {
    request: { carrier: 'DHL', trackingNumber: '00340434161094042557' },
    responses: {
      200: ok(
        packOrder({ status: 'DISPATCHED', carrier: 'DHL', trackingNumber: '00340434161094042557', updatedAt: '2026-11-23T14:00:00Z', dispatchedAt: '2026-11-23T14:00:00Z' }, null),
      ),
    },
  },
  getBoard: {
    responses: {
      200: ok({
        statusCounts: { PENDING_VALIDATION: 1, PENDING: 14, IN_PICKING: 2, PICKED: 5, PACKED: 3, DISPATCHED: 120, CANCELLED: 4 },
        issues: [
          {
            externalId: 'ORD-1039',
            orderNumber: 'WEB-2026-1039',
            status: 'PENDING',
            issues: [{ code: 'INSUFFICIENT_STOCK', message: 'Not enough stock of P-1007 (sku TEA-EARL-100)', productExternalId: 'P-1007' }],
          },
        ],
        waves: [
          {
            id: picking.id,
            number: picking.number,
            picker,
            progress: { stopsDone: 1, stopsTotal: 2, distanceLeft: 96.4 },
            orders: 2,
            orderNumbers: picking.orders.map((o) => o.orderNumber),
            createdAt: picking.createdAt,
          },
        ],
        webhooks: {
          failing: [{ id: webhook.id, url: webhook.url, consecutiveFailures: 3, lastError: 'HTTP_STATUS', lastAttemptAt: '2026-11-23T09:05:00Z' }],
          deadLetters: 2,
        },
        pickers: [picker],
        slotMismatches: { total: 1, products: [{ productExternalId: 'P-1001', sku: 'MUG-RED-12', stock: 240, inSlots: 236 }] },
        replenishments: { total: 1, tasks: [replenishment] },
        lowFaces: {
          total: 1,
          faces: [{ productExternalId: 'P-1001', sku: 'MUG-RED-12', locationCode: 'A-03-2', quantity: 2, min: 4, max: 24, replenishing: true }],
        },
      }),
    },
  },
  listRecentWaves: { responses: { 200: ok([pickerWave(picking, 0, 118.4)]) } },
  createUnassignedWave: { request: { maxOrders: 6, maxItems: 30 }, responses: { 201: ok({ ...pickerWave(picking, 0, 118.4), picker: null }) } },
  getConsoleWave: { responses: { 200: ok(pickerWave(picking, 0, 118.4, [{ tote: 1, label: 'T-0042' }])) } },
  assignWave: { request: { pickerId: picker.id }, responses: { 200: ok(pickerWave(picking, 0, 118.4)) } },
  releaseStuckWave: { responses: { 200: ok(pickerWave(wave('RELEASED', false), 0, 118.4)) } },
  correctStock: { request: { stock: 180 }, responses: { 200: ok({ externalId: product.externalId, sku: product.sku, name: product.name, stock: 180 }) } },
  getFloorPlan: {
    responses: {
      200: ok({
        layout,
        locations: locations.locations,
        waves: [
          {
            id: picking.id,
            number: picking.number,
            picker,
            policy: picking.policy,
            distance: picking.distance,
            path: [
              { x: 0, y: 0 },
              { x: 0, y: 4.4 },
              { x: 0, y: 0 },
              { x: 3, y: 0 },
              { x: 3, y: 14 },
              { x: 3, y: 0 },
              { x: 0, y: 0 },
            ],
            stops: [
              { seq: 1, locationCode: 'A-03-2', aisle: 1, position: 3, x: 0, y: 4.4, done: true },
              { seq: 2, locationCode: 'B-11-1', aisle: 2, position: 11, x: 3, y: 14, done: false },
            ],
          },
        ],
      }),
    },
  },
  getPickHeatMap: { responses: { 200: ok(heatMap) } },
  getConsolePickHeatMap: { responses: { 200: ok(heatMap) } },
  getInsightCharts: { responses: { 200: ok(insightCharts) } },
  getConsoleInsightCharts: { responses: { 200: ok(insightCharts) } },
};
