import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { BatchResult, IsoDateTime, Page, RequestId, Success, pageQuery } from '../http/schemas';

/*
 * The product's fields (docs/catalog.md) as schemas. Optional fields other than stock, isActive and isCombo also take null,
 * which clears the stored value. Single JSON-schema `type` lists (rather than anyOf unions) keep
 * a bad field to one clear message. No `default`s here: the validator would apply them on update
 * and reset fields the client did not send.
 */

/** `schema` or null; for OpenAPI 3.1 and one validation message per bad field. */
function orNull<T extends TSchema>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type as string, 'null'] });
}

const MetadataValue = Type.Unsafe<string | number>({ type: ['string', 'number'], description: 'string or number' });
/**
 * Any key, its value a string or a number. `additionalProperties` rather than `Type.Record`,
 * whose `^(.*)$` key pattern does not match keys holding a line break: validation let their values
 * through unchecked, and the response serializer dropped them.
 */
const metadataOf = <T extends TSchema>(value: T, options: { description?: string } = {}) =>
  Type.Unsafe<Record<string, Static<T>>>(Type.Object({}, { ...options, additionalProperties: value }));
const Metadata = metadataOf(MetadataValue, { description: 'Free custom fields; values are strings or numbers' });

/** The most stock a product may have: what a warehouse can hold, so that sums of stock and holds stay exact. */
export const MAX_STOCK = 1_000_000_000;

export const LOCATION_CODE_PATTERN = '^[A-Za-z0-9-]+$';

/** The most packagings a product has: a unit's few ways of being shipped (inner, case, pallet...). */
export const MAX_PACKAGINGS = 10;

export const Packaging = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 50, description: 'Unique among the product\'s packagings, case aside; for example "case"' }),
    quantity: Type.Integer({ minimum: 2, maximum: MAX_STOCK, description: 'Units of the product it holds: a whole number of at least 2' }),
    barcode: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, description: "No other packaging's nor any product's barcode, case aside; a scan of it counts `quantity` units" }),
    ),
  },
  { title: 'Packaging', additionalProperties: false },
);
export type Packaging = Static<typeof Packaging>;

export const ProductInput = Type.Object(
  {
    externalId: Type.String({ minLength: 1, maxLength: 100, description: "The product's id in your system; case-sensitive, immutable" }),
    sku: Type.String({ minLength: 1, maxLength: 50, description: 'Unique within the tenant' }),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    stock: Type.Optional(
      Type.Number({ minimum: 0, maximum: MAX_STOCK, description: '0 when a product is created without it; kept when omitted on update' }),
    ),
    locationCode: Type.Optional(
      orNull(Type.String({ maxLength: 50, pattern: LOCATION_CODE_PATTERN, description: 'Letters, digits and hyphens' })),
    ),
    price: Type.Optional(orNull(Type.Number({ minimum: 0, description: 'Unit price' }))),
    weight: Type.Optional(orNull(Type.Number({ exclusiveMinimum: 0, description: 'kg' }))),
    length: Type.Optional(orNull(Type.Number({ exclusiveMinimum: 0, description: 'cm' }))),
    width: Type.Optional(orNull(Type.Number({ exclusiveMinimum: 0, description: 'cm' }))),
    height: Type.Optional(orNull(Type.Number({ exclusiveMinimum: 0, description: 'cm' }))),
    barcode: Type.Optional(orNull(Type.String({ maxLength: 50 }))),
    category: Type.Optional(orNull(Type.String({ maxLength: 255 }))),
    supplier: Type.Optional(orNull(Type.String({ maxLength: 255 }))),
    brand: Type.Optional(orNull(Type.String({ maxLength: 255 }))),
    isActive: Type.Optional(Type.Boolean({ description: 'true when a product is created without it; false hides it from GET /products' })),
    isCombo: Type.Optional(Type.Boolean({ description: 'false when a product is created without it' })),
    imageUrl: Type.Optional(orNull(Type.String({ maxLength: 255 }))),
    metadata: Type.Optional(orNull(Metadata)),
    lotTracked: Type.Optional(Type.Boolean({ description: 'Whether stock is kept by lot and expiry; false when a product is created without it' })),
    packagings: Type.Optional(
      Type.Array(Packaging, { maxItems: MAX_PACKAGINGS, description: 'The ways units are packed ("1 case of 12"); [] when a product is created without it; [] removes them all' }),
    ),
  },
  {
    title: 'ProductInput',
    description: 'Fields sent overwrite the stored ones, fields left out keep their value; null clears an optional field.',
  },
);
export type ProductInput = Static<typeof ProductInput>;

export const MAX_BATCH_PRODUCTS = 200;
export const MAX_BATCH_BYTES = 5 * 1024 * 1024;

export const BatchBody = Type.Object({
  products: Type.Array(ProductInput, { maxItems: MAX_BATCH_PRODUCTS, description: 'At most 200 products and 5 MB' }),
});

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Product = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Internal id; reference products by externalId' }),
    externalId: Type.String(),
    sku: Type.String(),
    name: Type.String(),
    stock: Type.Number(),
    locationCode: nullable(Type.String()),
    price: nullable(Type.Number()),
    weight: nullable(Type.Number()),
    length: nullable(Type.Number()),
    width: nullable(Type.Number()),
    height: nullable(Type.Number()),
    barcode: nullable(Type.String()),
    category: nullable(Type.String()),
    supplier: nullable(Type.String()),
    brand: nullable(Type.String()),
    isActive: Type.Boolean(),
    isCombo: Type.Boolean(),
    imageUrl: nullable(Type.String()),
    metadata: nullable(metadataOf(Type.Union([Type.String(), Type.Number()]))),
    lotTracked: Type.Boolean(),
    packagings: Type.Array(Packaging),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  },
  { title: 'Product' },
);
export type Product = Static<typeof Product>;

export const UpsertResponse = Type.Object({
  success: Type.Literal(true),
  action: Type.Union([Type.Literal('created'), Type.Literal('updated')]),
  data: Type.Object({ id: Type.String({ format: 'uuid' }), externalId: Type.String(), sku: Type.String() }),
  warnings: Type.Array(Type.String(), {
    description: 'For example an unknown locationCode, or a field sent that is not a product field (it was ignored); the product was saved',
  }),
  requestId: RequestId,
});

export const BatchResponse = BatchResult('products', 'VALIDATION_ERROR, DUPLICATE_SKU or CONFLICT');
export type BatchResponse = Static<typeof BatchResponse>;

export const ProductResponse = Success(Product);
export const ProductPage = Page(Product);

export const ProductParams = Type.Object({ externalId: Type.String({ minLength: 1, maxLength: 100 }) });

export const ListQuery = Type.Object({
  ...pageQuery(50, 200),
  updated_since: Type.Optional(
    Type.String({ format: 'date-time', description: 'Only products updated at or after this time, listed oldest change first' }),
  ),
  active_only: Type.Optional(Type.Boolean({ default: true, description: 'false includes deactivated products' })),
});
export type ListQuery = Static<typeof ListQuery>;
