import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import type { Executor } from './handle';

const NAME = '[a-z_][a-z0-9_]*';
const SQL_IDENTIFIER = new RegExp(`^${NAME}$`);
const NAME_COMMENT = new RegExp(`^/\\* prepared (${NAME}) \\*/`);

/**
 * Names a statement whose text never changes (only its parameters), for one that runs often and
 * costs the server much to parse and plan. On PostgreSQL it is then a named prepared statement of
 * the protocol, parsed and planned once per connection (postgres-dialect.ts) rather than at every
 * run, where a batch's read of 400 names spent a quarter of its time. The name travels as the text's
 * leading comment, which the embedded database reads as a comment. A lower-case SQL identifier, one
 * per statement text.
 */
export function prepared<T>(name: string, statement: RawBuilder<T>): RawBuilder<T> {
  if (!SQL_IDENTIFIER.test(name)) throw new Error(`not a statement name: ${name}`);
  const named = sql<T>`/* prepared ${sql.raw(name)} */ ${statement}`;
  observer?.(name, named);
  return named;
}

/** A value bound as a parameter, or the placeholder of a statement's own parameter (`parameter`). */
export type Bindable<T> = T | RawBuilder<T>;

/** `$position::sqlType`: the placeholder of a parameter of a statement built by `preparedOnce`. */
export const parameter = <T>(position: number, sqlType: string): RawBuilder<T> => sql.raw<T>(`$${position}::${sqlType}`);

const textsByName = new Map<string, string>();

/**
 * `prepared`, for a statement that runs at every request and whose tree costs the service much to
 * build and compile (a product upsert: hundreds of nodes for Kysely to make and visit): `build`
 * makes it from the placeholders of its parameters (`parameter`), once per name, and each run only
 * binds `parameters` to that text. Its values must all be placeholders: a value bound by Kysely
 * would stay the first run's.
 */
export function preparedOnce<R>(db: Executor, name: string, build: () => RawBuilder<R>, parameters: unknown[]): CompiledQuery<R> {
  // Observed (the generator of the reference files), each run builds it again, so that it is seen.
  let text = observer ? undefined : textsByName.get(name);
  if (text === undefined) {
    const compiled = prepared(name, build()).compile(db);
    if (compiled.parameters.length > 0) throw new Error(`the statement ${name} binds a value in place of a placeholder`);
    text = compiled.sql;
    textsByName.set(name, text);
  }
  return CompiledQuery.raw(text, parameters) as CompiledQuery<R>;
}

type PreparedObserver = (name: string, statement: RawBuilder<unknown>) => void;
let observer: PreparedObserver | undefined;

/**
 * Calls `observe` with each statement `prepared` names, until the returned function is called. For
 * the generator of the reference files of the SQL that runs (scripts/generate-sql.ts), which must
 * see every named statement; one observer at a time.
 */
export function observePrepared(observe: PreparedObserver): () => void {
  if (observer) throw new Error('the statements named with prepared are observed already');
  observer = observe;
  return () => {
    observer = undefined;
  };
}

/** The name `prepared` gave the statement of this text, if any. */
export function preparedName(text: string): string | undefined {
  return NAME_COMMENT.exec(text)?.[1];
}
