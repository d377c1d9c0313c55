import type { Selectable } from 'kysely';
import { ignoredFieldWarnings, readOnlyFields } from '../http/ignored-fields';
import { Product, ProductInput } from './schemas';
import type { CatalogTables } from './tables';

export type ProductRow = Selectable<CatalogTables['products']>;

/** A writable product field (docs/catalog.md), its column and the SQL type its value is cast to. */
interface ProductField {
  field: keyof ProductInput;
  column: string;
  sqlType: 'text' | 'numeric' | 'boolean' | 'jsonb';
}

export const PRODUCT_FIELDS: readonly ProductField[] = [
  { field: 'externalId', column: 'external_id', sqlType: 'text' },
  { field: 'sku', column: 'sku', sqlType: 'text' },
  { field: 'name', column: 'name', sqlType: 'text' },
  { field: 'stock', column: 'stock', sqlType: 'numeric' },
  { field: 'locationCode', column: 'location_code', sqlType: 'text' },
  { field: 'price', column: 'price', sqlType: 'numeric' },
  { field: 'weight', column: 'weight', sqlType: 'numeric' },
  { field: 'length', column: 'length', sqlType: 'numeric' },
  { field: 'width', column: 'width', sqlType: 'numeric' },
  { field: 'height', column: 'height', sqlType: 'numeric' },
  { field: 'barcode', column: 'barcode', sqlType: 'text' },
  { field: 'category', column: 'category', sqlType: 'text' },
  { field: 'supplier', column: 'supplier', sqlType: 'text' },
  { field: 'brand', column: 'brand', sqlType: 'text' },
  { field: 'isActive', column: 'is_active', sqlType: 'boolean' },
  { field: 'isCombo', column: 'is_combo', sqlType: 'boolean' },
  { field: 'imageUrl', column: 'image_url', sqlType: 'text' },
  { field: 'metadata', column: 'metadata', sqlType: 'jsonb' },
  { field: 'lotTracked', column: 'lot_tracked', sqlType: 'boolean' },
  { field: 'packagings', column: 'packagings', sqlType: 'jsonb' },
];

export interface SentColumn {
  column: string;
  sqlType: ProductField['sqlType'];
  value: unknown;
}

/** The columns a request sets (fields it sent, unknown fields ignored), values ready to bind. */
export function sentColumns(input: ProductInput): SentColumn[] {
  const sent: SentColumn[] = [];
  for (const { field, column, sqlType } of PRODUCT_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    sent.push({ column, sqlType, value: sqlType === 'jsonb' && value !== null ? JSON.stringify(value) : value });
  }
  return sent;
}

/** The sent fields keyed by column, as one JSON object of a set-based statement's input. */
export function columnDocument(input: ProductInput): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (const { field, column } of PRODUCT_FIELDS) {
    if (input[field] !== undefined) doc[column] = input[field];
  }
  return doc;
}

export function toProduct(row: ProductRow): Product {
  return {
    id: row.id,
    externalId: row.external_id,
    sku: row.sku,
    name: row.name,
    stock: row.stock,
    locationCode: row.location_code,
    price: row.price,
    weight: row.weight,
    length: row.length,
    width: row.width,
    height: row.height,
    barcode: row.barcode,
    category: row.category,
    supplier: row.supplier,
    brand: row.brand,
    isActive: row.is_active,
    isCombo: row.is_combo,
    imageUrl: row.image_url,
    metadata: row.metadata,
    lotTracked: row.lot_tracked,
    packagings: row.packagings,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export const unknownLocationWarning = (code: string) =>
  `locationCode "${code}" is not a known warehouse location; the product was saved with it`;

const PRODUCT_READ_ONLY = readOnlyFields(Product, ProductInput);

/**
 * A warning per field of a sent product that is not a product field (or is one only the service
 * sets): it was ignored. `at` is the product's path in a batch (`products[1]`).
 */
export const ignoredProductFields = (sent: unknown, at?: string): string[] =>
  ignoredFieldWarnings(ProductInput, sent, { subject: 'a product', readOnly: PRODUCT_READ_ONLY, ...(at ? { at } : {}) });
