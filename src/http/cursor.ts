import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { validationError } from './errors';

/**
 * Keyset cursors: the sort key of the last row of a page (and what the listing carries along, such
 * as its total), base64url-encoded JSON, signed. Clients must not read them. A list's query code
 * sees only the unsigned key (`encodeCursor`, `decodeCursor`); the signature is added to every
 * `nextCursor` a list answers and checked on every `cursor` it is sent, here, once for every list
 * (`installCursorSigning`).
 */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/**
 * The key of a cursor whose signature was checked; a cursor that does not decode to the expected
 * shape, or that `valid` refuses, is a 400 on `cursor`.
 */
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

/*
 * Signed cursors. A cursor carries what the listing decided on its first page (its total), and the
 * service answers with what a cursor says: unsigned, an edited cursor would report a made-up total,
 * and one handed to another tenant's key would show that tenant the first one's count. So each
 * cursor is `<key>.<signature>`, the signature an HMAC-SHA256 over the key and the listing it belongs
 * to: the route, the caller's tenant (the API key's; on the warehouse API the tenant in the path),
 * the path's parameters and the query's filters (all but `cursor` and `limit`, as validated, so
 * defaults count as sent). A cursor sent with anything else is refused, 400 on `cursor`.
 *
 * The signing key is derived from the deployment's secret key (`PICKPORT_SECRET_KEY`, or the one
 * generated in the data directory) with HKDF under a label of its own: no setting to add, the same
 * on every instance that shares the secret key, and unrelated to the encryption key of secrets at
 * rest. Changing the secret key makes the cursors in flight invalid: listings start again.
 */
const CURSOR_KEY_LABEL = 'pickport list cursors v1';
const SIGNATURE_BYTES = 32;

export const cursorSigningKey = (secretKey: Buffer): Buffer =>
  Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), CURSOR_KEY_LABEL, SIGNATURE_BYTES));

const FOREIGN_CURSOR =
  'is not a cursor of this listing: a cursor holds only for the API key, path and filters of the page that returned it, ' +
  'unedited; send the same filters again, or start the listing again without cursor';

/** The route declares a `cursor` query parameter: it is a list that pages by keyset. */
function pagesByCursor(route: RouteOptions): boolean {
  const querystring = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  return querystring?.properties?.cursor !== undefined;
}

/** JSON with object keys sorted, so that the same filters always read the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The query parameters that page through a listing rather than choose it. */
const PAGING = new Set(['cursor', 'limit']);

/** A listing as its cursors are bound to it. */
export interface Listing {
  method: string;
  /** The route as declared, `/api/v1/public/webhooks/:id/deliveries`. */
  url: string;
  /** The API key's tenant; null where the path names it (the warehouse API) or no key is used. */
  tenantId: string | null;
  params: Record<string, unknown>;
  /** The query parameters as validated (defaults included), but `cursor` and `limit`. */
  filters: Record<string, unknown>;
}

/** The listing of this request, whatever page it asks for. */
function listingOf(request: FastifyRequest): Listing {
  const query = (request.query ?? {}) as Record<string, unknown>;
  return {
    method: request.method,
    url: request.routeOptions.url ?? request.url,
    tenantId: request.apiKey?.tenantId ?? null,
    params: (request.params ?? {}) as Record<string, unknown>,
    filters: Object.fromEntries(Object.entries(query).filter(([name]) => !PAGING.has(name))),
  };
}

const signatureOf = (signingKey: Buffer, listing: Listing, key: string): Buffer =>
  createHmac('sha256', signingKey)
    .update(canonical([listing.method, listing.url, listing.tenantId, listing.params, listing.filters]))
    .update('\n')
    .update(key)
    .digest();

const signed = (signingKey: Buffer, listing: Listing, key: string) => `${key}.${signatureOf(signingKey, listing, key).toString('base64url')}`;

/**
 * The cursor a client following `listing` would hold at `key` (an `encodeCursor` key), signed as
 * the service signs it: for tools that start a listing deep inside without paging there (benchmarks).
 */
export const signedCursor = (secretKey: Buffer, listing: Listing, key: string): string => signed(cursorSigningKey(secretKey), listing, key);

/**
 * Signs and checks the cursors of every route that declares a `cursor` query parameter, on the
 * routes registered after it: a cursor is checked before the handler (which then reads the key
 * alone, as `encodeCursor` made it), and the `pagination.nextCursor` of its answer is signed.
 */
export function installCursorSigning(app: FastifyInstance): void {
  const signingKey = cursorSigningKey(app.config.secretKey);

  function checkCursor(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
    const query = request.query as Record<string, unknown>;
    if (typeof query.cursor !== 'string') return done();
    const dot = query.cursor.lastIndexOf('.');
    const key = query.cursor.slice(0, Math.max(dot, 0));
    const sent = Buffer.from(query.cursor.slice(dot + 1), 'base64url');
    const expected = signatureOf(signingKey, listingOf(request), key);
    if (dot < 0 || sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
      return done(validationError([{ field: 'cursor', message: FOREIGN_CURSOR }]));
    }
    query.cursor = key;
    done();
  }

  function signNextCursor(request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
    const pagination = (payload as { pagination?: { nextCursor?: unknown } } | null)?.pagination;
    if (pagination && typeof pagination.nextCursor === 'string') {
      pagination.nextCursor = signed(signingKey, listingOf(request), pagination.nextCursor);
    }
    done(null, payload);
  }

  app.addHook('onRoute', (route) => {
    if (!pagesByCursor(route)) return;
    const listed = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);
    route.preHandler = [checkCursor, ...listed(route.preHandler)];
    route.preSerialization = [...listed(route.preSerialization), signNextCursor] as RouteOptions['preSerialization'];
  });
}
