import type { EventName, EventPayloads } from '../events/types';

/** Synthetic `data` of each event kind for test sends: the real shape, with made-up values. */
export const SAMPLE_PAYLOADS: { [E in EventName]: EventPayloads[E] } = {
  'order.status_changed': {
    externalId: 'test-order-1',
    orderNumber: 'TEST-0001',
    previousStatus: 'PACKED',
    status: 'DISPATCHED',
    updatedAt: '2026-04-23T12:00:00.000Z',
    carrier: 'DHL',
    trackingNumber: '00340434161094042557',
  },
  'order.issue_detected': {
    externalId: 'test-order-1',
    orderNumber: 'TEST-0001',
    status: 'PENDING_VALIDATION',
    hasIssues: true,
    issues: [{ type: 'UNRESOLVED_PRODUCT', productExternalId: 'test-product-1', productSku: 'TEST-SKU-1' }],
  },
  'order.issue_resolved': {
    externalId: 'test-order-1',
    orderNumber: 'TEST-0001',
    status: 'PENDING',
    hasIssues: false,
    resolvedIssues: ['UNRESOLVED_PRODUCT'],
  },
  'order.items_adjusted': {
    externalId: 'test-order-1',
    orderNumber: 'TEST-0001',
    status: 'PICKED',
    items: [{ productExternalId: 'test-product-1', productSku: 'TEST-SKU-1', previousQuantity: 3, quantity: 2 }],
    reason: 'PICKED_SHORT',
  },
  'product.stock_updated': {
    productId: '00000000-0000-4000-8000-000000000000',
    sku: 'TEST-SKU-1',
    previousStock: 10,
    newStock: 7,
    reason: 'ORDER_PICKED',
  },
};
