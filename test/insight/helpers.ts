import { expect } from 'vitest';
import type { TestContext, TestTenant } from '../helpers/context';
import { item, order } from '../orders/helpers';
import { floorWithOrders, signedIn, type ConsoleClient } from '../console/helpers';

/** A short pick the day records: which line, how many of it, why. */
interface Short {
  orderExternalId: string;
  productExternalId: string;
  quantity: number;
  reason: string;
}

/** Starts the picker's wave, records each line in full but `short`, and completes it; answers the wave as started. */
async function pickWave(picker: ConsoleClient, short: Short) {
  const started = await picker.post('/picking/wave');
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const wave = started.body.data;
  for (const line of wave.stops.flatMap((stop: { lines: { orderExternalId: string; productExternalId: string; quantity: number }[] }) => stop.lines)) {
    const isShort = line.orderExternalId === short.orderExternalId && line.productExternalId === short.productExternalId;
    const body = { orderExternalId: line.orderExternalId, productExternalId: line.productExternalId, quantity: isShort ? short.quantity : line.quantity, ...(isShort ? { reason: short.reason } : {}) };
    const recorded = await picker.post('/picking/wave/picks', body);
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(200);
  }
  const completed = await picker.post('/picking/wave/complete');
  expect(completed.status, JSON.stringify(completed.body)).toBe(200);
  return wave as { id: string; distance: number };
}

/**
 * A small day on the floor of floorWithOrders (every order: 2 × P1 at A-1, P2 at B-5, P3 at D-9):
 * Ana picks O1–O3 (O1's P1 one short, "damaged"), Ben picks O4–O5 (O4's P3 none, "not_found"),
 * O1 and O2 are packed and O1 dispatched.
 */
export async function pickedDay(ctx: TestContext, tenant: TestTenant) {
  const api = await floorWithOrders(ctx, tenant, 3);
  const ana = await signedIn(ctx, tenant, 'picker');
  const anasWave = await pickWave(ana, { orderExternalId: 'O1', productExternalId: 'P1', quantity: 1, reason: 'damaged' });
  for (const id of ['O4', 'O5']) {
    const created = await tenant.api.post('/orders', order(id, [item('P1', 2), item('P2', 1), item('P3', 1)]));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
  const ben = await signedIn(ctx, tenant, 'picker');
  const bensWave = await pickWave(ben, { orderExternalId: 'O4', productExternalId: 'P3', quantity: 0, reason: 'not_found' });
  await api.advance('O1', 'pack', 'dispatch');
  await api.advance('O2', 'pack');
  return { api, ana, ben, waves: [anasWave, bensWave] };
}

/** A period of two hours around now, as the query string sends it. */
export function periodAroundNow() {
  const now = Date.now();
  return { from: new Date(now - 3_600_000).toISOString(), to: new Date(now + 3_600_000).toISOString() };
}
