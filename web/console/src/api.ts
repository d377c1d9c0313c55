import type { paths } from './api-schema';

/**
 * The console API (`/console/api`, session cookie) as the screens use it. Every shape comes from
 * api-schema.d.ts, generated from the OpenAPI document the service serves
 * (`npm run generate:console`), so a route's schema and the screens cannot drift apart unnoticed.
 */

type Path = keyof paths;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type OperationOf<P extends Path, M extends Method> = Exclude<paths[P][Lowercase<M>], undefined>;
/** The methods the console API answers on `P`. */
type MethodOf<P extends Path> = { [M in Method]: [OperationOf<P, M>] extends [never] ? never : M }[Method];

type Json<R> = R extends { content: { 'application/json': infer Body } } ? Body : never;
type Responses<O> = O extends { responses: infer R } ? R : never;
/** The `data` of the operation's success envelope (200 or 201). */
export type Data<P extends Path, M extends MethodOf<P>> =
  Json<Responses<OperationOf<P, M>>[Extract<keyof Responses<OperationOf<P, M>>, 200 | 201>]> extends { data: infer D } ? D : never;
type RequestBody<O> = O extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never;
/** What the operation takes as its JSON body. */
export type BodyOf<P extends Path, M extends MethodOf<P>> = RequestBody<OperationOf<P, M>>;
type PathParams<O> = O extends { parameters: { path: infer Params extends Record<string, unknown> } } ? Params : never;
/** The query's parameters, whether or not any is required. */
type QueryParams<O> = O extends { parameters: { query?: infer Params } } ? (NonNullable<Params> extends Record<string, unknown> ? NonNullable<Params> : never) : never;

/** A body whose every field is optional (an empty object included) may be left out. */
type BodyOptional<O> = [RequestBody<O>] extends [never] ? true : Record<string, never> extends RequestBody<O> ? true : false;
/** What a request sends besides its method and path: its path parameters, its query and its body. */
type Request<O> = ([PathParams<O>] extends [never] ? { params?: never } : { params: PathParams<O> }) &
  ([QueryParams<O>] extends [never] ? { query?: never } : { query?: QueryParams<O> }) &
  ([RequestBody<O>] extends [never] ? { body?: never } : BodyOptional<O> extends true ? { body?: RequestBody<O> } : { body: RequestBody<O> });
/** The request argument, optional when the operation needs no path parameter and no body. */
type RequestArgs<O> = [[PathParams<O>] extends [never] ? true : false, BodyOptional<O>] extends [true, true] ? [request?: Request<O>] : [request: Request<O>];

export type Me = Data<'/session', 'GET'>;
export type Role = Me['user']['role'];
export type PickerWave = Data<'/picking/wave/picks', 'POST'>;
export type WaveStop = PickerWave['stops'][number];
export type WaveLine = WaveStop['lines'][number];
export type PickerRef = NonNullable<PickerWave['picker']>;
export type Progress = PickerWave['progress'];
export type PickBody = RequestBody<OperationOf<'/picking/wave/picks', 'POST'>>;
export type ShortReason = NonNullable<PickBody['reason']>;
export type PackOrder = Data<'/packing/orders/{ref}', 'GET'>;
export type Board = Data<'/board', 'GET'>;
export type Floor = Data<'/floor', 'GET'>;
export type CartPlan = Data<'/waves/plan', 'GET'>;
export type Settings = Data<'/settings', 'GET'>;
export type ExpiringLot = Data<'/lots', 'GET'>[number];
export type Trip = Data<'/replenishments/trip', 'GET'>;
export type TripTask = Trip['tasks'][number];
export type BlindCount = Data<'/counts/{id}/finish', 'POST'>;
export type CountedProduct = BlindCount['products'][number];
export type SlottingProposal = Data<'/slotting/proposals', 'POST'>;
export type HeatMap = Data<'/insight/heat-map', 'GET'>;
export type InsightCharts = Data<'/insight/charts', 'GET'>;

/** An answer of the API that was not a success: its envelope's code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The fields at fault, each with what is wrong (a 400 names them). */
    readonly details: readonly { field: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/** Told when any request answers 401: the session is gone (signed out elsewhere, or user disabled). */
let onUnauthorized: () => void = () => {};
export const whenUnauthorized = (listener: () => void) => {
  onUnauthorized = listener;
};

/**
 * One request to the console API, typed by its operation: `api('GET', '/packing/orders/{ref}',
 * { params: { ref } })`. Path parameters are encoded into the path, `query` into the query string. A network failure rejects with
 * the fetch's TypeError (the picker queues picks on it); an answer in the error envelope rejects
 * with ApiError. Same-origin fetches send the cookie, and browsers add the `Origin` header the API
 * checks on every write.
 */
export async function api<P extends Path, M extends MethodOf<P>>(method: M, path: P, ...[request]: RequestArgs<OperationOf<P, M>>): Promise<Data<P, M>> {
  return (await send(method, path, request)).data;
}

/** One page of a listing that pages with `limit` and `cursor`: its items and the next page's cursor (null on the last). */
export async function apiPage<P extends Path, M extends MethodOf<P>>(
  method: M,
  path: P,
  ...[request]: RequestArgs<OperationOf<P, M>>
): Promise<{ data: Data<P, M>; nextCursor: string | null }> {
  const envelope = await send(method, path, request);
  return { data: envelope.data, nextCursor: envelope.pagination?.nextCursor ?? null };
}

/** Sends the request and answers the success envelope; rejects as `api` says. */
async function send<P extends Path, M extends MethodOf<P>>(method: M, path: P, request: Request<OperationOf<P, M>> | undefined) {
  const params: Record<string, unknown> = request?.params ?? {};
  const body: unknown = request?.body;
  const query = new URLSearchParams(Object.entries(request?.query ?? {}).map(([name, value]) => [name, String(value)])).toString();
  const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name]))) + (query ? `?${query}` : '');
  const response = await fetch(`/console/api${url}`, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const envelope = (await response.json().catch(() => null)) as {
    success?: boolean;
    data?: Data<P, M>;
    pagination?: { nextCursor: string | null };
    error?: { code: string; message: string; details?: { field: string; message: string }[] };
  } | null;
  if (response.ok && envelope?.success) return envelope as { data: Data<P, M>; pagination?: { nextCursor: string | null } };
  const error = envelope?.error ?? { code: 'INTERNAL_ERROR', message: `The service answered ${response.status}` };
  if (response.status === 401 && path !== '/session') onUnauthorized();
  throw new ApiError(response.status, error.code, error.message, 'details' in error ? error.details : undefined);
}

/** True when a request failed because the network did (no answer at all). */
export const isNetworkFailure = (error: unknown) => error instanceof TypeError;

/** What to tell the user about a failed request. */
export function describe(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (isNetworkFailure(error)) return 'No connection to the service. Check the network and try again.';
  return String(error);
}
