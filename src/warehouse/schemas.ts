import { Type } from '@sinclair/typebox';
import { MAX_STOCK } from '../catalog/schemas';
import { Success } from '../http/schemas';
import { MAX_ITEM_QUANTITY } from '../orders/schemas';

export const OrderParams = Type.Object({ slug: Type.String(), externalId: Type.String({ minLength: 1, maxLength: 100 }) });
export const ProductParams = OrderParams;

export const CompletePickingBody = Type.Object({
  lines: Type.Optional(
    Type.Array(
      Type.Object({
        productExternalId: Type.String({ minLength: 1, maxLength: 100 }),
        pickedQuantity: Type.Integer({ minimum: 0, maximum: MAX_ITEM_QUANTITY, description: 'At most the ordered quantity; less is a short pick' }),
      }),
      { description: 'Lines left out were picked in full', maxItems: 1000 },
    ),
  ),
});

export const DispatchBody = Type.Object({
  carrier: Type.Optional(Type.String({ maxLength: 100 })),
  trackingNumber: Type.Optional(Type.String({ maxLength: 100 })),
});

export const StockBody = Type.Object(
  {
    stock: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_STOCK, description: 'The counted stock' })),
    delta: Type.Optional(Type.Number({ minimum: -MAX_STOCK, maximum: MAX_STOCK, description: 'Added to the stock (negative to remove)' })),
  },
  { description: 'Exactly one of stock and delta' },
);

export const StockResponse = Success(
  Type.Object({
    productId: Type.String({ format: 'uuid' }),
    externalId: Type.String(),
    sku: Type.String(),
    previousStock: Type.Number(),
    stock: Type.Number(),
  }),
);
