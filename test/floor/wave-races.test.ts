import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/http/errors';
import { makePlannedWave, PlanOvertaken, planWave, withFreshPlan, type PlannedWave, type WaveRequest } from '../../src/floor/wave-commands';
import { loadWave } from '../../src/floor/wave-reads';
import { createTestContext, usingPostgres, type TestContext, type TestTenant, UNLIMITED } from '../helpers/context';
import { item, order } from '../orders/helpers';
import { floorOf, seedPlacedProducts } from './helpers';
import { holdTransaction, waitsForLock, type HeldTransaction } from '../helpers/wait';
import { floorWithOrders, signedIn } from '../console/helpers';


/** Counts the walks of waves the planner works out from now on: one per plan of a wave (planWave). */
function countPlans(ctx: TestContext): () => number {
  const run = vi.spyOn(ctx.app.planner, 'run');
  const walks = () => run.mock.calls.filter(([task]) => task === 'planWaveLines').length;
  const before = walks();
  return () => walks() - before;
}

/** Every order of the tenant's waves still PICKING, with how many such waves hold it. */
async function picksPerOrder(ctx: TestContext, tenant: TestTenant): Promise<number[]> {
  const rows = await ctx.database.db
    .selectFrom('wave_orders as w')
    .innerJoin('waves as v', (join) => join.onRef('v.tenant_id', '=', 'w.tenant_id').onRef('v.id', '=', 'w.wave_id'))
    .select((eb) => ['w.order_id', eb.fn.countAll<number>().as('waves')])
    .where('w.tenant_id', '=', tenant.id)
    .where('v.status', '=', 'PICKING')
    .groupBy('w.order_id')
    .execute();
  return rows.map((row) => Number(row.waves));
}

describe('floor: waves made at the same time never share an order', () => {
  let ctx: TestContext;
  let tenant: TestTenant;
  let floor: Awaited<ReturnType<typeof floorOf>>;
  beforeAll(async () => {
    ctx = await createTestContext();
    tenant = await ctx.tenant(UNLIMITED);
    floor = await floorOf(ctx, tenant, [{ code: 'A-01', aisle: 1, position: 1 }]);
    await seedPlacedProducts(tenant, [{ externalId: 'BOX', locationCode: 'A-01', stock: 10_000 }]);
  });
  afterAll(() => ctx.close());

  async function placeOrders(prefix: string, n: number): Promise<string[]> {
    const ids = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
    for (const id of ids) expect((await tenant.api.post('/orders', order(id, [item('BOX')]))).status).toBe(201);
    return ids;
  }

  it('12 concurrent POST /waves over 20 orders: every order in at most one wave, each wave answered 201 or NOTHING_TO_PICK', async () => {
    const ids = await placeOrders('HTTP', 20);
    const responses = await Promise.all(Array.from({ length: 12 }, () => floor.post('/waves', { maxOrders: 2 })));
    for (const response of responses) {
      if (response.status !== 201) expect(response.body.error.code, JSON.stringify(response.body)).toBe('NOTHING_TO_PICK');
    }
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(10);
    const inWaves = created.flatMap((r) => r.body.data.orders.map((o: { externalId: string }) => o.externalId));
    expect(new Set(inWaves).size).toBe(inWaves.length);
    expect(inWaves.sort()).toEqual(ids.sort());
    expect((await picksPerOrder(ctx, tenant)).every((n) => n === 1)).toBe(true);
    // Out of the way of the next tests: released, then cancelled.
    for (const response of created) await floor.post(`/waves/${response.body.data.id}/release`);
    for (const id of ids) expect((await tenant.api.post(`/orders/${id}/cancel`)).status).toBe(200);
  });

  it('a wave planned before its product changed is not made from the stale plan: it is planned again', async () => {
    const [id] = await placeOrders('STALE', 1);
    const request: WaveRequest = { maxOrders: 8, maxItems: 40, policy: 'optimal', orders: [id!] };
    const context = { db: ctx.database.db, planner: ctx.app.planner, tenantId: tenant.id, deadline: ctx.app.planner.deadline() };
    const stale = await planWave(request, { ...context, excluded: [] });
    expect((await tenant.api.post('/products', { externalId: 'BOX', sku: 'SKU-BOX', name: 'Product BOX', locationCode: 'A-01', stock: 9_999 })).status).toBe(200);
    const make = (planned: PlannedWave) => ctx.database.db.transaction().execute((tx) => makePlannedWave(tx, tenant.id, planned));
    await expect(make(stale)).rejects.toBeInstanceOf(PlanOvertaken);
    const plans = countPlans(ctx);
    const made = await withFreshPlan(request, context, (planned) => make(planned ?? stale), { planFirst: false });
    expect(plans()).toBe(1);
    expect((await floor.get(`/waves/${made.waveId}`)).body.data.orders.map((o: { externalId: string }) => o.externalId)).toEqual([id]);
    await floor.post(`/waves/${made.waveId}/release`);
    expect((await tenant.api.post(`/orders/${id}/cancel`)).status).toBe(200);
  });

  it('four pickers pressing Start picking at once over 20 orders: three waves of different orders, the fourth told nothing is left', async () => {
    const other = await ctx.tenant(UNLIMITED);
    await floorWithOrders(ctx, other, 20);
    const pickers = await Promise.all(Array.from({ length: 4 }, () => signedIn(ctx, other, 'picker')));
    const answers = await Promise.all(pickers.map((picker) => picker.post('/picking/wave')));
    const made = answers.filter((answer) => answer.status === 201);
    for (const answer of answers.filter((a) => a.status !== 201)) expect(answer.body.error.code, JSON.stringify(answer.body)).toBe('NOTHING_TO_PICK');
    expect(made).toHaveLength(3);
    const taken = made.flatMap((answer) => answer.body.data.orders.map((o: { externalId: string }) => o.externalId));
    expect(new Set(taken).size).toBe(taken.length);
    expect(taken.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `O${i + 1}`).sort());
    expect(new Set(made.map((answer) => answer.body.data.picker!.id)).size).toBe(3);
  });

  describe.skipIf(!usingPostgres)('two transactions held open on PostgreSQL', () => {


    const limits: WaveRequest = { maxOrders: 3, maxItems: 40, policy: 'optimal' };
    const waveOrders = async (trx: HeldTransaction, waveId: string) => (await loadWave(trx, tenant.id, waveId)).orders.map((o) => o.externalId);
    const context = () => ({ db: ctx.database.db, planner: ctx.app.planner, tenantId: tenant.id, deadline: ctx.app.planner.deadline() });
    /** A wave planned outside any transaction, as the routes plan one. */
    const plan = (request: WaveRequest) => planWave(request, { ...context(), excluded: [] });

    it('two plans made at once choose the same cart; the second, overtaken under its lock, is planned again and takes other orders without waiting', async () => {
      const ids = await placeOrders('HELD', 6);
      const planned = (await floor.get('/waves/plan?maxOrders=3')).body.data.carts[0]!.orders.map((o: { externalId: string }) => o.externalId);
      const [planA, planB] = await Promise.all([plan(limits), plan(limits)]);
      expect(planB.orderIds).toEqual(planA.orderIds);
      const first = await holdTransaction(ctx.database.db);
      const second = await holdTransaction(ctx.database.db);
      try {
        const a = await makePlannedWave(first.trx, tenant.id, planA);
        const plans = countPlans(ctx);
        // Would hang (and time out) if the second waited for the first's locks.
        const b = await withFreshPlan(limits, context(), (planned) => makePlannedWave(second.trx, tenant.id, planned ?? planB), { planFirst: false });
        expect(plans()).toBe(1);
        const inA = await waveOrders(first.trx, a.waveId);
        const inB = await waveOrders(second.trx, b.waveId);
        expect(inA).toEqual(planned);
        expect(inB).toHaveLength(3);
        expect([...inA, ...inB].sort()).toEqual(ids.sort());
        await first.trx.commit().execute();
        await second.trx.commit().execute();
      } finally {
        await Promise.allSettled([first.trx.rollback().execute(), second.trx.rollback().execute()]);
      }
      expect((await picksPerOrder(ctx, tenant)).every((n) => n === 1)).toBe(true);
      for (const id of ids) expect((await tenant.api.get(`/orders/${id}`)).body.data.status).toBe('IN_PICKING');
      const waves = (await floor.get('/waves?status=PICKING&limit=100')).body.data as { id: string }[];
      for (const wave of waves) await floor.post(`/waves/${wave.id}/release`);
    });

    it('an order named by the second while the first holds it: the second waits, then answers 409', async () => {
      const [id] = await placeOrders('NAMED', 1);
      const named = { ...limits, orders: [id!] };
      const [planA, planB] = await Promise.all([plan(named), plan(named)]);
      const first = await holdTransaction(ctx.database.db);
      const second = await holdTransaction(ctx.database.db);
      try {
        await makePlannedWave(first.trx, tenant.id, planA);
        const pending = makePlannedWave(second.trx, tenant.id, planB).then(
          () => undefined,
          (error: unknown) => error,
        );
        await waitsForLock(ctx.database.db, second.pid);
        await first.trx.commit().execute();
        const error = await pending;
        expect(error).toBeInstanceOf(ApiError);
        expect(error).toMatchObject({ statusCode: 409, code: 'CONFLICT' });
        await second.trx.rollback().execute();
      } finally {
        await Promise.allSettled([first.trx.rollback().execute(), second.trx.rollback().execute()]);
      }
      expect(await picksPerOrder(ctx, tenant)).toEqual([1]);
    });
  });
});
