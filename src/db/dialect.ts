import { PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type Dialect, type Driver } from 'kysely';

/** A Kysely dialect speaking PostgreSQL's SQL through `driver`: the one thing our two dialects differ in. */
export function postgresDialect(createDriver: () => Driver): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver,
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db) => new PostgresIntrospector(db),
  };
}
