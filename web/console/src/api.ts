import type { Layout } from '../../../src/floor/plan/layout';

/** The console API (`/console/api`, session cookie) as the screens use it; shapes from the contract. */

export type Role = 'picker' | 'packer' | 'supervisor';

export interface Me {
  user: { id: string; username: string; name: string; role: Role };
  warehouse: { slug: string; name: string };
}

export interface WaveLine {
  orderExternalId: string;
  tote: number;
  productExternalId: string;
  productSku: string;
  barcode: string | null;
  name: string;
  quantity: number;
  pickedQuantity: number | null;
  reason?: ShortReason | null;
}

export interface WaveStop {
  seq: number;
  locationCode: string;
  aisle: number;
  position: number;
  lines: WaveLine[];
}

export interface PickerRef {
  id: string;
  username: string;
  name: string;
}

export interface Progress {
  stopsDone: number;
  stopsTotal: number;
  distanceLeft: number;
}

export interface PickerWave {
  id: string;
  status: 'PICKING' | 'COMPLETED' | 'RELEASED';
  policy: string;
  distance: number;
  sShapeDistance: number;
  orders: { externalId: string; orderNumber: string; tote: number }[];
  stops: WaveStop[];
  unplaced: WaveLine[];
  picker: PickerRef | null;
  progress: Progress;
  createdAt: string;
}

export type ShortReason = 'not_found' | 'damaged' | 'other';

export interface PickBody {
  orderExternalId: string;
  productExternalId: string;
  quantity: number;
  reason?: ShortReason;
}

export interface PackOrder {
  externalId: string;
  orderNumber: string;
  status: string;
  /** The public order view has no product names; the console API may add them. */
  items: { productExternalId: string; productSku: string; name?: string | null; quantity: number }[];
  carrier?: string | null;
  trackingNumber?: string | null;
}

export interface Board {
  statusCounts: Record<string, number>;
  issues: { externalId: string; orderNumber: string; status: string; issues: { code: string; message: string; productExternalId?: string }[] }[];
  waves: { id: string; picker: PickerRef | null; progress: Progress; orders: number; createdAt: string }[];
  webhooks: { failing: { id: string; url: string; consecutiveFailures?: number; lastError?: string | null; lastAttemptAt?: string | null }[]; deadLetters: number };
}

export interface Floor {
  layout: Layout | null;
  locations: { code: string; aisle: number; position: number; level?: number | null }[];
  waves: {
    id: string;
    picker: PickerRef | null;
    policy: string;
    distance: number;
    path: { x: number; y: number }[];
    stops: { seq: number; locationCode: string; aisle: number; position: number; x: number; y: number; done: boolean }[];
  }[];
}

/** An answer of the API that was not a success: its envelope's code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
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
 * One request to the console API. A network failure rejects with the fetch's TypeError (the picker
 * queues picks on it); an answer in the error envelope rejects with ApiError. Same-origin fetches
 * send the cookie, and browsers add the `Origin` header the API checks on every write.
 */
export async function api<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const response = await fetch(`/console/api${path}`, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const envelope = (await response.json().catch(() => null)) as { success?: boolean; data?: T; error?: { code: string; message: string } } | null;
  if (response.ok && envelope?.success) return envelope.data as T;
  const error = envelope?.error ?? { code: 'INTERNAL_ERROR', message: `The service answered ${response.status}` };
  if (response.status === 401 && path !== '/session') onUnauthorized();
  throw new ApiError(response.status, error.code, error.message);
}

/** True when a request failed because the network did (no answer at all). */
export const isNetworkFailure = (error: unknown) => error instanceof TypeError;

/** What to tell the user about a failed request. */
export function describe(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (isNetworkFailure(error)) return 'No connection to the service. Check the network and try again.';
  return String(error);
}
