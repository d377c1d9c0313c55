import { validationError } from './errors';

/**
 * Opaque keyset cursors: the sort key of the last row of a page (and what the listing carries
 * along, such as its total), base64url-encoded JSON. Clients must not read them; a cursor that
 * does not decode to the expected shape, or that `valid` refuses, is a 400 on `cursor`.
 */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeCursor<K extends (string | number)[] = (string | number)[]>(
  cursor: string,
  shape: readonly ('string' | 'number')[],
  valid: (key: K) => boolean = () => true,
): K {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  if (!Array.isArray(key) || key.length !== shape.length || key.some((part, i) => typeof part !== shape[i]) || !valid(key as K)) {
    throw validationError([{ field: 'cursor', message: 'is not a cursor this list returned' }]);
  }
  return key as K;
}

/** A total carried in a cursor: a count. */
export const isCount = (value: number): boolean => Number.isSafeInteger(value) && value >= 0;
