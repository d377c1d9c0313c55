import SerializerSelector, { type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { unstorableText } from './input-check';

/**
 * Dates and times as clients send them. Groups: year, month, day, hour, minute, second, fraction,
 * offset sign, offset hours, offset minutes.
 * `iso-8601`: a calendar date, or a date and time (seconds optional) with an optional offset.
 * `date-time`: RFC 3339, a date and time with seconds and an offset.
 */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2})(?::?(\d{2}))?)?)?$/i;
const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-])(\d{2}):(\d{2}))$/i;

/** PostgreSQL refuses offsets beyond ±15:59. */
const MAX_OFFSET_HOURS = 15;
/**
 * The instants accepted, in UTC: years 1000 to 9999. A later instant (even 9999-12-31 with a
 * negative offset) comes back from PostgreSQL in year 10000, which JavaScript cannot read; an
 * earlier one below year 100 comes back from the embedded database in the wrong century.
 */
const EARLIEST = Date.UTC(1000, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59);

const daysIn = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** Whether `value` matches `pattern` and names a real moment PostgreSQL stores as sent. */
function isStorableTimestamp(pattern: RegExp, value: string): boolean {
  const parts = pattern.exec(value);
  if (!parts) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0] = parts.slice(1, 7).map((part) => Number(part ?? 0));
  const [offsetHours = 0, offsetMinutes = 0] = parts.slice(9, 11).map((part) => Number(part ?? 0));
  if (year === undefined || month === undefined || day === undefined) return false;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > MAX_OFFSET_HOURS || offsetMinutes > 59) return false;
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second);
  // PostgreSQL keeps microseconds: a fraction that rounds up to a whole second is the next second.
  const carry = Math.round(Number(`0.${parts[7] ?? 0}`) * 1e6) === 1e6 ? 1000 : 0;
  const offset = (parts[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const instant = utc.getTime() + carry - offset;
  return instant >= EARLIEST && instant <= LATEST;
}

function makeAjv(coerceTypes: boolean | 'array') {
  // verbose: issues carry their schema, for its PATTERN_RULE (errors.ts).
  const ajv = new Ajv({ coerceTypes, useDefaults: true, allErrors: true, removeAdditional: false, strict: false, verbose: true });
  addFormats(ajv);
  ajv.addFormat('iso-8601', { type: 'string', validate: (value: string) => isStorableTimestamp(ISO_8601, value) });
  // Replaces ajv-formats' date-time, which takes year 0000 and offsets up to ±23:59.
  ajv.addFormat('date-time', { type: 'string', validate: (value: string) => isStorableTimestamp(RFC_3339, value) });
  return ajv;
}

/**
 * A body validator that first refuses text PostgreSQL cannot store (input-check.ts), reporting it
 * as the schema's own problems are reported, at the field's JSON path.
 */
function withTextCheck(validate: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    const unstorable = unstorableText(data);
    const valid = validate(data, context);
    checked.errors = unstorable.length > 0 ? [...unstorable, ...(validate.errors ?? [])] as ValidateFunction['errors'] : validate.errors;
    return valid && unstorable.length === 0;
  }) as ValidateFunction;
  checked.schemaEnv = validate.schemaEnv;
  return checked;
}

/**
 * A validator compiled when it is first called (or asked for its `schemaEnv`, which Fastify reads
 * before each call), not when its route is registered: compiling every route's schemas at once
 * was a large part of a start's CPU (docs/architecture.md, "The server build"), for routes a
 * process may never serve.
 */
function compiledOnFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const validator = () => (compiled ??= compile());
  const validate = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    const valid = validator()(data, context);
    validate.errors = validator().errors;
    return valid;
  }) as ValidateFunction;
  Object.defineProperty(validate, 'schemaEnv', { get: () => validator().schemaEnv });
  return validate;
}

/**
 * Bodies are validated strictly (a string "5" is not the number 5) and report every bad field;
 * query strings and path parameters arrive as text and are coerced to the schema's types.
 */
export function validatorCompiler(): FastifySchemaCompiler<object> {
  // Made by the first compilation too: each with its formats is a noticeable part of a start (docs/benchmarks.md).
  let strict: Ajv | undefined;
  let coercing: Ajv | undefined;
  return ({ schema, httpPart }) =>
    compiledOnFirstUse(() =>
      httpPart === 'body' ? withTextCheck((strict ??= makeAjv(false)).compile(schema)) : (coercing ??= makeAjv('array')).compile(schema),
    );
}

/**
 * Fastify's response serializers (fast-json-stringify), each compiled when its route first
 * answers with that status, for the reason of compiledOnFirstUse above.
 */
export function serializersOnFirstUse(externalSchemas: unknown, options: Parameters<SerializerFactory>[1]): ReturnType<SerializerFactory> {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let serialize: ReturnType<typeof compile> | undefined;
    return (data) => (serialize ??= compile(route))(data);
  };
}
