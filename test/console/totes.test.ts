import { afterAll, describe, expect, it } from 'vitest';
import { createTestContext } from '../helpers/context';
import { item, order, warehouse } from '../orders/helpers';
import { type ConsoleClient, floorWithOrders, signedIn } from './helpers';

/*
 * Tote labels: a picker scans a label onto each tote of the wave; the pack station finds the order
 * by it until the order is packed. The integration API never shows them.
 */

const ctx = await createTestContext();
afterAll(() => ctx.close());

const label = (picker: ConsoleClient, code: string) => picker.post('/picking/wave/totes', { label: code });

/** Records every line of the picker's wave in full and finishes it. */
async function pickAll(picker: ConsoleClient) {
  const wave = (await picker.get('/picking/wave')).body.data!;
  for (const line of [...wave.stops.flatMap((stop) => stop.lines), ...wave.unplaced]) {
    const picked = await picker.post('/picking/wave/picks', { orderExternalId: line.orderExternalId, productExternalId: line.productExternalId, quantity: line.quantity });
    expect(picked.status, JSON.stringify(picked.body)).toBe(200);
  }
  expect((await picker.post('/picking/wave/complete')).status).toBe(200);
  return wave;
}

describe('tote labels', () => {
  it('label the totes in order; a label on an open order is refused saying which; packing frees it', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 3);
    const ana = await signedIn(ctx, tenant, 'picker');
    const ben = await signedIn(ctx, tenant, 'picker');
    const packer = await signedIn(ctx, tenant, 'packer');
    await ana.post('/picking/wave', {});

    const first = await label(ana, 'T-1');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.toteLabels).toEqual([{ tote: 1, label: 'T-1' }]);
    const again = await label(ana, 'T-1');
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/^Label T-1 is already on tote 1 of this wave \(order \S+, not packed yet\)/);
    await label(ana, 'T-2');
    const third = await label(ana, 'T-3');
    expect(third.body.data.toteLabels.map((tote) => `${tote.tote}:${tote.label}`)).toEqual(['1:T-1', '2:T-2', '3:T-3']);
    const fourth = await label(ana, 'T-4');
    expect(fourth.status).toBe(409);
    expect(fourth.body.error.message).toMatch(/Every tote of wave \S+ has its label/);

    const wave = await pickAll(ana);
    const orderInTote = (tote: number) => wave.orders.find((order) => order.tote === tote)!;

    // The pack station finds an order by its tote's label, and shows the tote.
    const found = await packer.get('/packing/orders/T-2');
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.data).toMatchObject({ externalId: orderInTote(2).externalId, tote: { number: 2, label: 'T-2' } });
    expect(found.body.data.items.map((item) => item.barcode)).toEqual(['400000000001', '400000000002', '400000000003']);

    // While its order waits to be packed, another wave cannot take the label.
    expect((await tenant.api.post('/orders', order('O9', [item('P1')]))).status).toBe(201);
    expect((await ben.post('/picking/wave', {})).status).toBe(201);
    const taken = await label(ben, 'T-2');
    expect(taken.status).toBe(409);
    expect(taken.body.error.message).toBe(`Label T-2 is already on tote 2 of another wave (order ${orderInTote(2).orderNumber}, not packed yet): use another label`);

    expect((await packer.post(`/packing/orders/${orderInTote(2).externalId}/pack`)).status).toBe(200);
    expect((await packer.get('/packing/orders/T-2')).status).toBe(404);
    const packed = await packer.get(`/packing/orders/${orderInTote(2).externalId}`);
    expect(packed.body.data.tote).toEqual({ number: 2, label: null });
    const reused = await label(ben, 'T-2');
    expect(reused.status, JSON.stringify(reused.body)).toBe(200);
    expect(reused.body.data.toteLabels).toEqual([{ tote: 1, label: 'T-2' }]);
    expect((await packer.get('/packing/orders/T-2')).status).toBe(200);
  });

  it('a released wave frees its labels', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 1);
    const picker = await signedIn(ctx, tenant, 'picker');
    const supervisor = await signedIn(ctx, tenant, 'supervisor');
    const wave = (await picker.post('/picking/wave', {})).body.data;
    expect((await label(picker, 'CART-7')).status).toBe(200);
    expect((await supervisor.post(`/waves/${wave.id}/release`)).status).toBe(200);
    await picker.post('/picking/wave', {});
    expect((await label(picker, 'CART-7')).status).toBe(200);
  });

  it('the integration API shows nothing of totes', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 1);
    const picker = await signedIn(ctx, tenant, 'picker');
    await picker.post('/picking/wave', {});
    await label(picker, 'LBL-PRIVATE');
    await pickAll(picker);
    const picked = await tenant.api.get('/orders/O1');
    expect(picked.body.data.status).toBe('PICKED');
    expect(JSON.stringify(picked.body)).not.toMatch(/tote|LBL-PRIVATE/i);
    const wave = (await warehouse(ctx, tenant).get('/waves')).body.data[0]!;
    expect(JSON.stringify(wave)).not.toContain('LBL-PRIVATE');
  });

  it('refuses a label with no wave in hand (404), an empty or padded label (400), and a packer (403)', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 1);
    const picker = await signedIn(ctx, tenant, 'picker');
    const packer = await signedIn(ctx, tenant, 'packer');
    expect((await label(picker, 'T-1')).status).toBe(404);
    await picker.post('/picking/wave', {});
    for (const bad of ['', ' T-1', 'T-1 ']) {
      const refused = await label(picker, bad);
      expect(refused.status).toBe(400);
      expect(refused.body.error.details?.[0]?.field).toBe('label');
    }
    expect((await label(packer, 'T-1')).status).toBe(403);
    expect((await picker.get('/picking/wave')).body.data!.toteLabels).toEqual([]);
  });
});
