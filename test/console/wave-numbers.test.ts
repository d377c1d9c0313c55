import { afterAll, describe, expect, it } from 'vitest';
import { createTestContext } from '../helpers/context';
import { floorWithOrders, signedIn } from './helpers';

/*
 * A wave's number: 1, 2, 3… per warehouse in the order waves are planned, the same in every read
 * of it.
 */

const ctx = await createTestContext();
afterAll(() => ctx.close());

describe('wave numbers', () => {
  it('numbers each warehouse’s waves from 1 in the order they are made; a released wave keeps its number, which is never given again', async () => {
    const [acme, globex] = [await ctx.tenant(), await ctx.tenant()];
    const acmeFloor = await floorWithOrders(ctx, acme, 4);
    const globexFloor = await floorWithOrders(ctx, globex, 1);
    const supervisor = await signedIn(ctx, acme, 'supervisor');

    const first = (await supervisor.post('/waves', { maxOrders: 1 })).body.data;
    const second = (await acmeFloor.post('/waves', { maxOrders: 1 })).body.data;
    expect([first.number, second.number]).toEqual([1, 2]);
    // Another warehouse counts its own.
    expect((await globexFloor.post('/waves', { maxOrders: 1 })).body.data.number).toBe(1);

    expect((await supervisor.post(`/waves/${second.id}/release`)).body.data).toMatchObject({ status: 'RELEASED', number: 2 });
    const third = (await supervisor.post('/waves', { maxOrders: 1 })).body.data;
    expect(third.number).toBe(3);

    // Every read of a wave carries it.
    expect((await acmeFloor.get(`/waves/${first.id}`)).body.data.number).toBe(1);
    expect((await acmeFloor.get('/waves')).body.data.map((wave) => wave.number)).toEqual([1, 2, 3]);
    expect((await supervisor.get(`/waves/${third.id}`)).body.data.number).toBe(3);
    const board = (await supervisor.get('/board')).body.data;
    expect(board.waves.map((wave) => [wave.id, wave.number])).toEqual([
      [first.id, 1],
      [third.id, 3],
    ]);
    expect((await supervisor.get('/floor')).body.data.waves.map((wave) => wave.number)).toEqual([1, 3]);
    const picker = await signedIn(ctx, acme, 'picker');
    expect((await picker.post('/picking/wave', {})).body.data.number).toBe(1);
  });

  it('gives waves made at the same moment numbers of their own', async () => {
    const tenant = await ctx.tenant();
    await floorWithOrders(ctx, tenant, 5);
    const supervisor = await signedIn(ctx, tenant, 'supervisor');
    const made = await Promise.all([1, 2, 3, 4].map(() => supervisor.post('/waves', { maxOrders: 1 })));
    // Two requests may plan the same order; the later one then plans again or finds nothing left.
    const waves = made.filter((response) => response.status === 201).map((response) => response.body.data);
    expect(waves.length).toBeGreaterThan(0);
    // Each its own number (taken before the wave's transaction, so none waited for another's commit;
    // a plan overtaken keeps its number, a request that found nothing left may have skipped one).
    const numbers = waves.map((wave) => wave.number);
    expect(new Set(numbers).size).toBe(numbers.length);
    const next = await supervisor.post('/waves', { maxOrders: 1 });
    expect(next.status, JSON.stringify(next.body)).toBe(201);
    expect(next.body.data.number).toBeGreaterThan(Math.max(...numbers));
  });
});
