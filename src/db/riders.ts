import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { CompiledQuery, DatabaseConnection } from 'kysely';

/**
 * A statement that travels with a transaction's COMMIT instead of costing a round trip of its own
 * (the stored answer of an idempotent write, src/http/write.ts). On PostgreSQL it goes in one
 * message with COMMIT (postgres-dialect.ts: the simple query protocol runs several statements per
 * message, but takes no parameters, so its parameters are written into the text as literals, as
 * they are for a transaction's first statement, which carries its BEGIN); on the embedded
 * database, where a round trip costs nothing, it runs on its own.
 */
export interface TransactionRiders {
  /**
   * Runs right before COMMIT; set by the transaction's work once it knows what to write. If it
   * fails, the transaction rolls back. Named with `prepared` (prepared.ts), it is sent as
   * `EXECUTE name(...)`.
   */
  beforeCommit?: CompiledQuery;
  /** The connection whose transaction took the riders: any other transaction started meanwhile leaves them alone. */
  connection?: DatabaseConnection;
}

const current = new AsyncLocalStorage<TransactionRiders>();

/** Runs `start` (which begins one transaction) with riders for that transaction. */
export function withRiders<T>(riders: TransactionRiders, start: () => Promise<T>): Promise<T> {
  return current.run(riders, start);
}

/** For a dialect's BEGIN: the riders of the transaction beginning on `connection`, if any; it takes them for its COMMIT. */
export function ridersForBegin(connection: DatabaseConnection): TransactionRiders | undefined {
  const riders = current.getStore();
  if (!riders || riders.connection) return undefined;
  riders.connection = connection;
  return riders;
}

/** For a dialect's COMMIT: the riders its BEGIN took on `connection`, if any. */
export function ridersForCommit(connection: DatabaseConnection): TransactionRiders | undefined {
  const riders = current.getStore();
  return riders?.connection === connection ? riders : undefined;
}

/**
 * The query as one parameterless text, or undefined when a parameter cannot be written as a
 * literal (binary data). Each `$n` outside quotes becomes the very text node-postgres would bind
 * for it (`prepareValue`), quoted by its `escapeLiteral`: an untyped literal, which the server
 * types from its context exactly as it types an untyped parameter.
 */
export function inlineParameters(query: CompiledQuery): string | undefined {
  const text = query.sql;
  let inlined = '';
  let copiedUpTo = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "'" || char === '"') {
      i = closingQuote(text, i);
    } else if (char === '$' && isDigit(text[i + 1])) {
      let end = i + 1;
      while (isDigit(text[end])) end++;
      const literal = asLiteral(query.parameters[Number(text.slice(i + 1, end)) - 1]);
      if (literal === undefined) return undefined;
      inlined += text.slice(copiedUpTo, i) + literal;
      copiedUpTo = end;
      i = end - 1;
    }
  }
  return inlined + text.slice(copiedUpTo);
}

/**
 * `EXECUTE name(...)` with the query's parameters written in as literals (as `inlineParameters`
 * does), or undefined when a parameter cannot be written as a literal.
 */
export function preparedExecution(name: string, query: CompiledQuery): string | undefined {
  const literals: string[] = [];
  for (const parameter of query.parameters) {
    const literal = asLiteral(parameter);
    if (literal === undefined) return undefined;
    literals.push(literal);
  }
  return literals.length === 0 ? `EXECUTE ${name}` : `EXECUTE ${name}(${literals.join(', ')})`;
}

const isDigit = (char: string | undefined) => char !== undefined && char >= '0' && char <= '9';

/** The index of the quote closing the string or identifier opened at `start` (a doubled quote is part of it). */
function closingQuote(text: string, start: number): number {
  const quote = text[start];
  let i = start + 1;
  while (i < text.length) {
    if (text[i] !== quote) i++;
    else if (text[i + 1] === quote) i += 2;
    else return i;
  }
  return i;
}

/** node-postgres's own conversion of a parameter to the text it binds (exported, but not in its types). */
const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils;

function asLiteral(value: unknown): string | undefined {
  const prepared = prepareValue(value);
  if (prepared === null) return 'NULL';
  if (typeof prepared !== 'string') return undefined;
  return quoteLiteral(prepared);
}

/**
 * The literal `pg.escapeLiteral` writes, made by native string replacement: it builds its result a
 * character at a time, which took 0.37 ms for the 18 kB of JSON of a batch of 200 products (against
 * 0.01 ms). Whatever `standard_conforming_strings` says, a text with backslashes is written as an
 * escape string (E'...') with its backslashes doubled.
 */
function quoteLiteral(text: string): string {
  const quoted = `'${text.replaceAll("'", "''")}'`;
  return text.includes('\\') ? ` E${quoted.replaceAll('\\', '\\\\')}` : quoted;
}
