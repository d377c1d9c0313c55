import { randomUUID } from 'node:crypto';
import createFetchClient, { type Client } from 'openapi-fetch';
import { PickportError } from './errors.js';
import { PageIterator, type Page } from './pages.js';
import { retryingFetch, type RetryOptions } from './retry.js';
import type { operations, paths } from './schema.js';

export interface PickportClientOptions {
  /** The deployment's origin, e.g. `https://pickport.example.com`; the API's paths carry `/api/v1/public`. */
  baseUrl: string;
  /** `pk_live_…`, as issued by the operator. */
  apiKey: string;
  /** Retries of 429, 503 and network errors; `{attempts: 1}` turns them off. */
  retry?: RetryOptions;
  /** The fetch to send with; default the global one. */
  fetch?: (request: Request) => Promise<Response>;
}

/** Per write: the idempotency key to send (default a new UUID v4 per call, kept across its retries). */
export interface WriteOptions {
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface ReadOptions {
  signal?: AbortSignal;
}

type JsonBody<Op> = Op extends { requestBody?: { content: { 'application/json': infer Body } } } ? Body : never;
type Query<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** A list's filters; the cursor is the iterator's business. */
type Filters<Op> = Omit<Query<Op>, 'cursor'>;

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Answers a call's body on success; throws PickportError otherwise. */
async function ok<Data>(call: Promise<{ data?: Data; error?: unknown; response: Response }>): Promise<Data> {
  const { data, error, response } = await call;
  if (response.ok && data !== undefined) return data;
  throw new PickportError(response, error);
}

const writeInit = (options: WriteOptions = {}) => ({
  ...(options.idempotencyKey ? { headers: { 'x-idempotency-key': options.idempotencyKey } } : {}),
  ...(options.signal ? { signal: options.signal } : {}),
});
const readInit = (options: ReadOptions = {}) => (options.signal ? { signal: options.signal } : {});

/**
 * The Pickport public API, typed from its OpenAPI document. Every write carries an
 * `X-Idempotency-Key` (a new UUID v4 unless given), so the retries of 429, 503 and network errors
 * are safe; lists are async iterators over their pages; failures throw PickportError. `raw` is
 * the underlying openapi-fetch client, for any path of the document, with the same behaviour.
 */
export class PickportClient {
  readonly raw: Client<paths>;

  constructor(options: PickportClientOptions) {
    this.raw = createFetchClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${options.apiKey}` },
      fetch: retryingFetch(options.fetch ?? ((request) => fetch(request)), options.retry),
    });
    // Once per call, before the first attempt: every retry sends the same key.
    this.raw.use({
      onRequest({ request }) {
        if (WRITE_METHODS.has(request.method) && !request.headers.has('x-idempotency-key')) request.headers.set('x-idempotency-key', randomUUID());
        return request;
      },
    });
  }

  readonly products = {
    /** Creates or updates one product by `externalId`; `action` says which. */
    upsert: (body: JsonBody<operations['upsertProduct']>, options?: WriteOptions) =>
      ok(this.raw.POST('/api/v1/public/products', { body, ...writeInit(options) })),
    /** Many products in one request; each item succeeds or fails on its own (`errors`). */
    batch: (body: JsonBody<operations['upsertProductBatch']>, options?: WriteOptions) =>
      ok(this.raw.POST('/api/v1/public/products/batch', { body, ...writeInit(options) })),
    get: (externalId: string, options?: ReadOptions) =>
      ok(this.raw.GET('/api/v1/public/products/{externalId}', { params: { path: { externalId } }, ...readInit(options) })),
    /** Every product matching the filters, page by page; `updated_since` for incremental sync. */
    list: (filters: Filters<operations['listProducts']> = {}, options?: ReadOptions) =>
      this.#pages((cursor) => this.raw.GET('/api/v1/public/products', { params: { query: { ...filters, cursor } }, ...readInit(options) })),
  };

  readonly orders = {
    /** Creates or updates one order by `externalId`. */
    upsert: (body: JsonBody<operations['upsertOrder']>, options?: WriteOptions) =>
      ok(this.raw.POST('/api/v1/public/orders', { body, ...writeInit(options) })),
    batch: (body: JsonBody<operations['upsertOrderBatch']>, options?: WriteOptions) =>
      ok(this.raw.POST('/api/v1/public/orders/batch', { body, ...writeInit(options) })),
    get: (externalId: string, options?: ReadOptions) =>
      ok(this.raw.GET('/api/v1/public/orders/{externalId}', { params: { path: { externalId } }, ...readInit(options) })),
    list: (filters: Filters<operations['listOrders']> = {}, options?: ReadOptions) =>
      this.#pages((cursor) => this.raw.GET('/api/v1/public/orders', { params: { query: { ...filters, cursor } }, ...readInit(options) })),
    cancel: (externalId: string, options?: WriteOptions) =>
      ok(this.raw.POST('/api/v1/public/orders/{externalId}/cancel', { params: { path: { externalId } }, ...writeInit(options) })),
  };

  readonly webhooks = {
    /** Registers an endpoint; the answer is the only one that shows the secret. */
    create: (body: JsonBody<operations['createWebhook']>, options?: WriteOptions) =>
      ok(this.raw.POST('/api/v1/public/webhooks', { body, ...writeInit(options) })),
    list: (options?: ReadOptions) => ok(this.raw.GET('/api/v1/public/webhooks', readInit(options))),
    get: (id: string, options?: ReadOptions) => ok(this.raw.GET('/api/v1/public/webhooks/{id}', { params: { path: { id } }, ...readInit(options) })),
    update: (id: string, body: JsonBody<operations['updateWebhook']>, options?: WriteOptions) =>
      ok(this.raw.PATCH('/api/v1/public/webhooks/{id}', { params: { path: { id } }, body, ...writeInit(options) })),
    delete: (id: string, options?: WriteOptions) =>
      ok(this.raw.DELETE('/api/v1/public/webhooks/{id}', { params: { path: { id } }, ...writeInit(options) })),
    rotateSecret: (id: string, body: JsonBody<operations['rotateWebhookSecret']>, options?: WriteOptions) =>
      ok(this.raw.POST('/api/v1/public/webhooks/{id}/rotate-secret', { params: { path: { id } }, body, ...writeInit(options) })),
    test: (id: string, body: JsonBody<operations['testWebhook']>, options?: WriteOptions) =>
      ok(this.raw.POST('/api/v1/public/webhooks/{id}/test', { params: { path: { id } }, body, ...writeInit(options) })),
    replay: (id: string, body: JsonBody<operations['replayDeadLetters']> = {}, options?: WriteOptions) =>
      ok(this.raw.POST('/api/v1/public/webhooks/{id}/replay', { params: { path: { id } }, body, ...writeInit(options) })),
    deliveries: (id: string, filters: Filters<operations['listDeliveries']> = {}, options?: ReadOptions) =>
      this.#pages((cursor) =>
        this.raw.GET('/api/v1/public/webhooks/{id}/deliveries', { params: { path: { id }, query: { ...filters, cursor } }, ...readInit(options) }),
      ),
    deadLetters: (id: string, filters: Filters<operations['listDeadLetters']> = {}, options?: ReadOptions) =>
      this.#pages((cursor) =>
        this.raw.GET('/api/v1/public/webhooks/{id}/dead-letters', { params: { path: { id }, query: { ...filters, cursor } }, ...readInit(options) }),
      ),
  };

  #pages<Item, Data extends Page<Item>>(fetchPage: (cursor: string | undefined) => Promise<{ data?: Data; error?: unknown; response: Response }>) {
    return new PageIterator<Data['data'][number]>((cursor) => ok(fetchPage(cursor)));
  }
}

export function createPickportClient(options: PickportClientOptions): PickportClient {
  return new PickportClient(options);
}
