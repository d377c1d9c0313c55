import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UNLIMITED } from '../helpers/context';
import { useTestContext } from '../helpers/setup';
import { item, order, seedProducts, stockOf, warehouse } from '../orders/helpers';

type Action =
  | { kind: 'upsert'; id: number; product: number; quantity: number }
  | { kind: 'cancel'; id: number }
  | { kind: 'start'; id: number }
  | { kind: 'complete'; id: number; picked: number }
  | { kind: 'restock'; product: number; delta: number };

const id = fc.integer({ min: 0, max: 3 });
const product = fc.integer({ min: 0, max: 1 });
const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('upsert' as const), id, product, quantity: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('cancel' as const), id }),
  fc.record({ kind: fc.constant('start' as const), id }),
  fc.record({ kind: fc.constant('complete' as const), id, picked: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('restock' as const), product, delta: fc.integer({ min: 1, max: 3 }) }),
);

interface ModelOrder {
  status: string;
  product: number;
  quantity: number;
}

/**
 * Any sequence of create, update, cancel, pick and restock keeps the books straight: stock never
 * goes below zero and drops by exactly what was picked, and the stock orders hold (PENDING and
 * IN_PICKING) is what a simple model of the holding rules says, so each new order's INSUFFICIENT_STOCK
 * verdict matches it.
 */
describe('stock and reservations under any sequence of order operations (property)', () => {
  const setup = useTestContext();

  it('stock never goes negative and holds add up', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 2, maxLength: 2 }), fc.array(action, { maxLength: 12 }), async (initial, actions) => {
        const tenant = await setup.ctx.tenant(UNLIMITED);
        const floor = warehouse(setup.ctx, tenant);
        const products = initial.map((stock, i) => ({ externalId: `P${i}`, sku: `SKU-P${i}`, stock }));
        await seedProducts(tenant, products);
        const stock = [...initial];
        const orders = new Map<number, ModelOrder>();
        const held = (p: number, except: number) =>
          [...orders.entries()]
            .filter(([key, o]) => key !== except && o.product === p && (o.status === 'PENDING' || o.status === 'IN_PICKING'))
            .reduce((sum, [, o]) => sum + o.quantity, 0);

        for (const step of actions) {
          const current = 'id' in step ? orders.get(step.id) : undefined;
          if (step.kind === 'upsert') {
            const response = await tenant.api.post('/orders', order(`O${step.id}`, [item(`P${step.product}`, step.quantity)]));
            if (current && current.status !== 'PENDING') {
              expect(response.status).toBe(409);
              continue;
            }
            expect(response.status).toBe(current ? 200 : 201);
            const short = step.quantity > (stock[step.product] ?? 0) - held(step.product, step.id);
            expect(response.body.data.hasIssues).toBe(short);
            orders.set(step.id, { status: 'PENDING', product: step.product, quantity: step.quantity });
          } else if (step.kind === 'cancel') {
            const response = await tenant.api.post(`/orders/O${step.id}/cancel`);
            const expected = !current ? 404 : ['PENDING', 'CANCELLED'].includes(current.status) ? 200 : 409;
            expect(response.status).toBe(expected);
            if (current && expected === 200) current.status = 'CANCELLED';
          } else if (step.kind === 'start') {
            const response = await floor.post(`/orders/O${step.id}/start-picking`);
            expect(response.status).toBe(!current ? 404 : current.status === 'PENDING' ? 200 : 409);
            if (current?.status === 'PENDING') current.status = 'IN_PICKING';
          } else if (step.kind === 'complete') {
            const picked = Math.min(step.picked, current?.quantity ?? 0);
            const response = await floor.post(`/orders/O${step.id}/complete-picking`, {
              lines: current ? [{ productExternalId: `P${current.product}`, pickedQuantity: picked }] : [],
            });
            expect(response.status).toBe(!current ? 404 : current.status === 'IN_PICKING' ? 200 : 409);
            if (current?.status === 'IN_PICKING') {
              stock[current.product] = Math.max(0, (stock[current.product] ?? 0) - picked);
              current.status = 'PICKED';
              current.quantity = picked;
            }
          } else {
            expect((await floor.post(`/products/P${step.product}/stock`, { delta: step.delta })).status).toBe(200);
            stock[step.product] = (stock[step.product] ?? 0) + step.delta;
          }
        }

        for (const [i, expected] of stock.entries()) {
          const actual = await stockOf(tenant, `P${i}`);
          expect(actual).toBeGreaterThanOrEqual(0);
          expect(actual).toBe(expected);
        }
        for (const [key, expected] of orders) {
          const { data } = (await tenant.api.get(`/orders/O${key}`)).body;
          expect(data.status).toBe(expected.status);
          expect(data.items).toEqual([expect.objectContaining({ productExternalId: `P${expected.product}`, quantity: expected.quantity })]);
        }
        // What the API says orders hold, per product, is what the model holds.
        const listed = (await tenant.api.get('/orders', { limit: '100' })).body.data as { status: string; items: { productExternalId: string; quantity: number }[] }[];
        for (const p of [0, 1]) {
          const fromApi = listed
            .filter((o) => o.status === 'PENDING' || o.status === 'IN_PICKING')
            .flatMap((o) => o.items)
            .filter((line) => line.productExternalId === `P${p}`)
            .reduce((sum, line) => sum + line.quantity, 0);
          expect(fromApi).toBe(held(p, -1));
        }
      }),
      { numRuns: 20 },
    );
  });
});
