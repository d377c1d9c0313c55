import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

function makeAjv(coerceTypes: boolean | 'array') {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, allErrors: true, removeAdditional: false, strict: false });
  addFormats(ajv);
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
