import type { CatalogTables } from '../catalog/tables';
import type { EventsTables } from '../events/tables';
import type { FloorTables } from '../floor/tables';
import type { HttpTables } from '../http/tables';
import type { OrdersTables } from '../orders/tables';
import type { StaffTables } from '../staff/tables';
import type { TenancyTables } from '../tenancy/tables';
import type { WebhooksTables } from '../webhooks/tables';

/** Every table the service reads or writes, as Kysely sees it; each feature declares its own. */
export interface Database extends TenancyTables, CatalogTables, EventsTables, HttpTables, OrdersTables, WebhooksTables, FloorTables, StaffTables {}
