import type { ColumnType, Generated } from 'kysely';
import type { Packaging } from './schemas';

type Numeric = ColumnType<number, number | string, number | string>;

export interface CatalogTables {
  products: {
    tenant_id: string;
    id: Generated<string>;
    external_id: string;
    sku: string;
    name: string;
    stock: ColumnType<number, number | string | undefined, number | string>;
    location_code: string | null;
    price: Numeric | null;
    weight: Numeric | null;
    length: Numeric | null;
    width: Numeric | null;
    height: Numeric | null;
    barcode: string | null;
    category: string | null;
    supplier: string | null;
    brand: string | null;
    is_active: Generated<boolean>;
    is_combo: Generated<boolean>;
    image_url: string | null;
    metadata: ColumnType<Record<string, string | number> | null, string | null, string | null>;
    lot_tracked: Generated<boolean>;
    packagings: ColumnType<Packaging[], string | undefined, string>;
    created_at: Generated<Date>;
    updated_at: Generated<Date>;
  };
  /** One row per packaging barcode, kept by the products' trigger (migration 038). */
  packaging_barcodes: {
    tenant_id: string;
    product_id: string;
    barcode: string;
  };
}

// The database layer names no feature: each adds its own tables to the service's schema.
declare module '../db/schema' {
  interface Database extends CatalogTables {}
}
