import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { describe, expect, it } from 'vitest';
import { completeWave } from '../../src/floor/wave-commands';
import { runWrite } from '../../src/http/write';
import { eventsOf, item, order, stockOf } from '../orders/helpers';
import { useFloor } from './helpers';

/** Counts the statements run through the Kysely instance it is added to. */
class StatementCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.count++;
    return args.result;
  }
}

describe('floor: completing a wave of many orders', () => {
  const setup = useFloor({
    locations: [
      { code: 'A-02', aisle: 1, position: 2 },
      { code: 'C-07', aisle: 3, position: 7 },
    ],
    products: [
      { externalId: 'BOOT', locationCode: 'A-02', stock: 1000 },
      { externalId: 'BELT', locationCode: 'C-07', stock: 1000 },
      { externalId: 'GLOVE', stock: 1000 },
    ],
  });

  let orders = 0;
  /**
   * A wave of `size` orders of BOOT ×2, BELT ×1, GLOVE ×1, all picked: BOOT whole, BELT short (0)
   * in every second order, GLOVE whole, with GLOVE's stock then set to 3 so that it runs out.
   */
  async function pickedWave(size: number) {
    expect((await setup.floor.post('/products/GLOVE/stock', { stock: 1000 })).status).toBe(200);
    const externalIds: string[] = [];
    for (let i = 0; i < size; i++) {
      const externalId = `M-${++orders}`;
      const placed = await setup.tenant.api.post('/orders', order(externalId, [item('BOOT', 2), item('BELT', 1), item('GLOVE', 1)]));
      expect(placed.status, JSON.stringify(placed.body)).toBe(201);
      externalIds.push(externalId);
    }
    const made = await setup.floor.post('/waves', { orders: externalIds });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const waveId: string = made.body.data.id;
    for (const [index, externalId] of externalIds.entries()) {
      const short = index % 2 === 1;
      for (const [productExternalId, quantity] of [['BOOT', 2], ['BELT', short ? 0 : 1], ['GLOVE', 1]] as const) {
        const picked = await setup.floor.post(`/waves/${waveId}/picks`, { orderExternalId: externalId, productExternalId, quantity, ...(short ? { reason: 'not found' } : {}) });
        expect(picked.status, JSON.stringify(picked.body)).toBe(200);
      }
    }
    expect((await setup.floor.post('/products/GLOVE/stock', { stock: 3 })).status).toBe(200);
    return { waveId, externalIds };
  }

  /** Completes the wave, counting the statements of the work (not those recording its events). */
  async function complete(waveId: string): Promise<number> {
    const counter = new StatementCounter();
    let statements = 0;
    await runWrite(setup.ctx.database.db.withPlugin(counter), setup.tenant.id, async (tx) => {
      const events = await completeWave(tx, setup.tenant.id, waveId);
      statements = counter.count;
      return { events };
    });
    return statements;
  }

  /** The events completing the wave must cause, order by order as complete-picking causes them. */
  function expectedEvents(externalIds: string[], stock: Record<'BOOT' | 'BELT' | 'GLOVE', number>) {
    const expected: unknown[][] = [];
    const take = (product: keyof typeof stock, quantity: number) => {
      const previous = stock[product];
      stock[product] = Math.max(previous - quantity, 0);
      if (stock[product] !== previous) expected.push(['product.stock_updated', `SKU-${product}`, previous, stock[product]]);
    };
    externalIds.forEach((externalId, index) => {
      const short = index % 2 === 1;
      expected.push(['order.status_changed', externalId, 'IN_PICKING', 'PICKED']);
      take('BOOT', 2);
      take('BELT', short ? 0 : 1);
      take('GLOVE', 1);
      if (short) expected.push(['order.items_adjusted', externalId, 'BELT', 1, 0]);
    });
    return expected;
  }

  it('applies every order as complete-picking would, in statements that do not grow with the orders', async () => {
    const counts: number[] = [];
    for (const size of [2, 12]) {
      const { waveId, externalIds } = await pickedWave(size);
      const stock = { BOOT: await stockOf(setup.tenant, 'BOOT'), BELT: await stockOf(setup.tenant, 'BELT'), GLOVE: await stockOf(setup.tenant, 'GLOVE') };
      const eventsBefore = (await eventsOf(setup.ctx, setup.tenant)).length;

      counts.push(await complete(waveId));

      const events = (await eventsOf(setup.ctx, setup.tenant)).slice(eventsBefore).map(({ event, data }) => {
        if (event === 'product.stock_updated') return [event, data.sku, data.previousStock, data.newStock];
        if (event === 'order.items_adjusted') {
          const [adjusted] = data.items as { productExternalId: string; previousQuantity: number; quantity: number }[];
          return [event, data.externalId, adjusted!.productExternalId, adjusted!.previousQuantity, adjusted!.quantity];
        }
        return [event, data.externalId, data.previousStatus, data.status];
      });
      expect(events).toEqual(expectedEvents(externalIds, { ...stock }));
      const shorts = Math.floor(size / 2);
      expect(await stockOf(setup.tenant, 'BOOT')).toBe(stock.BOOT - 2 * size);
      expect(await stockOf(setup.tenant, 'BELT')).toBe(stock.BELT - (size - shorts));
      expect(await stockOf(setup.tenant, 'GLOVE')).toBe(Math.max(3 - size, 0));
      for (const [index, externalId] of externalIds.entries()) {
        const shown = (await setup.tenant.api.get(`/orders/${externalId}`)).body.data;
        expect(shown.status).toBe('PICKED');
        expect(shown.items.map((line: { quantity: number }) => line.quantity)).toEqual([2, index % 2 === 1 ? 0 : 1, 1]);
      }
      expect((await setup.floor.get(`/waves/${waveId}`)).body.data.status).toBe('COMPLETED');
    }
    expect(counts[1]).toBe(counts[0]);
  });
});
