import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import type { FastifySchemaCompiler } from 'fastify';
import { fieldProblems, validationError, type AjvIssue, type ApiError } from './errors';

/** A calendar date, or a date and time with an optional offset: what clients call ISO 8601. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

function isIso8601(value: string): boolean {
  if (!ISO_8601.test(value) || Number.isNaN(Date.parse(value))) return false;
  // Date.parse rolls 2026-02-30 over into March; a real calendar day survives the round trip.
  const [year = 0, month = 0, day = 0] = value.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function makeAjv(coerceTypes: boolean | 'array') {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, allErrors: true, removeAdditional: false, strict: false });
  addFormats(ajv);
  ajv.addFormat('iso-8601', { type: 'string', validate: isIso8601 });
  return ajv;
}

/**
 * Bodies are validated strictly (a string "5" is not the number 5) and report every bad field;
 * query strings and path parameters arrive as text and are coerced to the schema's types.
 */
export function validatorCompiler(): FastifySchemaCompiler<object> {
  const strict = makeAjv(false);
  const coercing = makeAjv('array');
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema);
}

/**
 * Checks one element of a batch the way a route checks its body: the same strictness, and the
 * same VALIDATION_ERROR (with details) when it fails; undefined when it passes.
 */
export function bodyCheck(schema: TSchema): (value: unknown) => ApiError | undefined {
  const validate = makeAjv(false).compile(schema);
  return (value) => (validate(value) ? undefined : validationError(fieldProblems((validate.errors ?? []) as AjvIssue[], 'body')));
}
