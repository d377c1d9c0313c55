import type { components, paths } from '../../packages/client/src/schema';

/**
 * The type of an answer's body, found from the request's method and path in the OpenAPI document
 * the service serves (packages/client/src/schema.d.ts, generated from it), so that a test reads
 * `response.body.data.stock` checked against the documented shape, with no type written by hand.
 *
 * A path given as a template (`/products/${id}`) or with a query string is matched against the
 * documented templates (`/products/{externalId}`); when several match, the most specific wins
 * (`/webhooks/{id}/deliveries` over `/webhooks/{id}`).
 */

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
type Path = keyof paths & string;

/** `/products/{externalId}` as the type of the strings it stands for: `/products/${string}`. */
type Template<K extends string> = K extends `${infer Head}{${string}}${infer Tail}` ? `${Head}${string}${Template<Tail>}` : K;
type WithoutQuery<P extends string> = P extends `${infer Bare}?${string}` ? Bare : P;

type OperationAt<K extends Path, M extends Method> = Exclude<paths[K][Lowercase<M> & keyof paths[K]], undefined>;

/** The documented paths with an operation for `method` that `path` can be. */
type Candidates<M extends Method, P extends string> = {
  [K in Path]: WithoutQuery<P> extends Template<K> ? ([OperationAt<K, M>] extends [never] ? never : K) : never;
}[Path];

/** Of the candidates, those no other candidate is more specific than. */
type MostSpecific<C extends Path> = {
  [K in C]: true extends { [Other in Exclude<C, K>]: Template<Other> extends Template<K> ? true : never }[Exclude<C, K>] ? never : K;
}[C];

export type OperationOf<M extends Method, P extends string> = MostSpecific<Candidates<M, P>> extends infer K extends Path
  ? [K] extends [never]
    ? never
    : OperationAt<K, M>
  : never;

type ErrorResponse = components['schemas']['ErrorResponse'];

/**
 * The error envelope as a test reads it: `details` (validation errors) and `retryAfter` (429, 503)
 * typed as present, since a test reads them only where its status says they are.
 */
export type ErrorAnswer = Omit<ErrorResponse, 'error'> & { error: Required<ErrorResponse['error']> };

type Content<R> = R extends { content: infer C } ? (C extends { 'application/json': infer Json } ? Json : C[keyof C]) : undefined;
type Responses<O> = O extends { responses: infer R } ? R : never;
type SuccessBody<O> = Content<Responses<O>[Extract<keyof Responses<O>, 200 | 201 | 202 | 204>]>;

/** The answer of a route the document does not describe (the tests' own probe routes, an unknown path). */
export type UndocumentedAnswer = { success: boolean; data: unknown; requestId: string } & Pick<ErrorAnswer, 'error'>;

/**
 * What a test reads: the success answer's fields and the error envelope's together. A test asserts
 * the status first and then reads the fields that status carries; reading the other kind's field
 * (`error` of a success) throws and fails the test.
 */
export type Answer<O> = [O] extends [never]
  ? UndocumentedAnswer
  : SuccessBody<O> extends infer S
    ? S extends Record<string, unknown>
      ? Omit<S, 'success'> & Pick<ErrorAnswer, 'error'> & { success: boolean; requestId: string }
      : S
    : never;

/** The body of the answer to `method path` (to each, for a union of paths). */
export type AnswerTo<M extends Method, P extends string> = P extends string ? Answer<OperationOf<M, P>> : never;

/** Any answer read as a refusal, for helpers that check the error of whichever request. */
export type Refusal = Pick<ErrorAnswer, 'error'>;
