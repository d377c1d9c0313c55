import { afterAll, describe, expect, it } from 'vitest';
import { createTestContext } from '../helpers/context';
import { floorWithOrders, signedIn } from './helpers';

/*
 * A supervisor's waves reach the pickers: Start picking takes the oldest wave nobody is assigned
 * to before it makes one, and a supervisor can give a wave to a picker.
 */

const ctx = await createTestContext();
afterAll(() => ctx.close());

describe("picking a supervisor's wave", () => {
  it('Start picking takes the oldest unassigned PICKING wave first, then makes a new one', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 3);
    const supervisor = await signedIn(ctx, tenant, 'supervisor');
    const older = (await supervisor.post('/waves', { maxOrders: 1 })).body.data;
    const newer = (await supervisor.post('/waves', { maxOrders: 1 })).body.data;
    const [ana, ben, cat] = [await signedIn(ctx, tenant, 'picker'), await signedIn(ctx, tenant, 'picker'), await signedIn(ctx, tenant, 'picker')];

    const first = await ana.post('/picking/wave', {});
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ id: older.id, picker: { id: ana.user.id } });
    expect((await ben.post('/picking/wave', {})).body.data.id).toBe(newer.id);
    const made = await cat.post('/picking/wave', {});
    expect(made.status).toBe(201);
    expect([older.id, newer.id]).not.toContain(made.body.data.id);
    // Started again: the same wave.
    expect((await ana.post('/picking/wave', {})).body.data.id).toBe(older.id);
  });

  it('a supervisor assigns a wave to a picker; the board lists each wave\'s orders and who can pick', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 2);
    const supervisor = await signedIn(ctx, tenant, 'supervisor');
    const ana = await signedIn(ctx, tenant, 'picker');
    const ben = await signedIn(ctx, tenant, 'picker');
    const packer = await signedIn(ctx, tenant, 'packer');
    const wave = (await supervisor.post('/waves', { maxOrders: 1 })).body.data;

    const board = (await supervisor.get('/board')).body.data;
    expect(board.waves).toEqual([expect.objectContaining({ id: wave.id, picker: null, orderNumbers: wave.orders.map((o) => o.orderNumber) })]);
    expect(board.pickers.map((picker) => picker.id).sort()).toEqual([supervisor.user.id, ana.user.id, ben.user.id].sort());

    const assigned = await supervisor.post(`/waves/${wave.id}/assign`, { pickerId: ana.user.id });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect(assigned.body.data.picker).toMatchObject({ id: ana.user.id });
    expect((await ana.get('/picking/wave')).body.data?.id).toBe(wave.id);

    // Ben has a wave of his own: the supervisor cannot give him a second one.
    const own = (await ben.post('/picking/wave', {})).body.data;
    const refused = await supervisor.post(`/waves/${wave.id}/assign`, { pickerId: ben.user.id });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/is picking another wave/);
    expect((await ana.get('/picking/wave')).body.data?.id).toBe(wave.id);
    expect((await ben.get('/picking/wave')).body.data?.id).toBe(own.id);

    expect((await supervisor.post(`/waves/${wave.id}/assign`, { pickerId: packer.user.id })).status).toBe(404);
    expect((await ana.post(`/waves/${wave.id}/assign`, { pickerId: ana.user.id })).status).toBe(403);
    const bad = await supervisor.post(`/waves/${wave.id}/assign`, { pickerId: 'nobody' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details?.[0]?.field).toBe('pickerId');
  });
});
