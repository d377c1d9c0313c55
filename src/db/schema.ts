/**
 * Every table the service reads or writes, as Kysely sees it. The database layer names no feature:
 * each feature (and the HTTP core) adds its own tables from its tables.ts, by declaration merging
 * (`declare module '../db/schema' { interface Database extends CatalogTables {} }`). Every
 * tables.ts is part of the compiled program, so the interface is whole wherever it is used.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Database {}
