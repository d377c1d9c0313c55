export { createPickportClient, PickportClient, type PickportClientOptions, type ReadOptions, type WriteOptions } from './client.js';
export { PickportError, type ErrorCode, type ErrorDetail, type ErrorEnvelope } from './errors.js';
export { PageIterator, type Page } from './pages.js';
export type { RetryEvent, RetryOptions } from './retry.js';
export {
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type SignOptions,
  type VerifiedWebhook,
  type VerifyOptions,
  type WebhookEventName,
  type WebhookHeaders,
  type WebhookPayload,
  type WebhookVerificationCode,
} from './webhooks.js';
export type { components, operations, paths } from './schema.js';
