import { validationError } from './errors';

/**
 * Opaque keyset cursors: the sort key of the last row of a page, base64url-encoded JSON.
 * Clients must not read them; a cursor that does not decode to the expected shape is a 400.
 */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeCursor(cursor: string, shape: readonly ('string' | 'number')[]): (string | number)[] {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  if (!Array.isArray(key) || key.length !== shape.length || key.some((part, i) => typeof part !== shape[i])) {
    throw validationError([{ field: 'cursor', message: 'is not a cursor this list returned' }]);
  }
  return key as (string | number)[];
}
