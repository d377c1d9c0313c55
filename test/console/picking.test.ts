import { afterAll, describe, expect, it } from 'vitest';
import { createTestContext } from '../helpers/context';
import { floorWithOrders, signedIn } from './helpers';

const ctx = await createTestContext();
afterAll(() => ctx.close());

describe('picking in the console', () => {
  it('starts a wave for the picker, and the same wave again', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 3);
    const picker = await signedIn(ctx, tenant, 'picker');
    expect((await picker.get('/picking/wave')).body.data).toBeNull();
    const started = await picker.post('/picking/wave', {});
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const wave = started.body.data;
    expect(wave).toMatchObject({ status: 'PICKING', picker: { id: picker.user.id, username: picker.user.username } });
    expect(wave.orders).toHaveLength(3);
    expect(wave.progress).toEqual({ stopsDone: 0, stopsTotal: 3, distanceLeft: wave.distance });
    const again = await picker.post('/picking/wave', {});
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(wave.id);
    expect((await picker.get('/picking/wave')).body.data.id).toBe(wave.id);
  });
});
