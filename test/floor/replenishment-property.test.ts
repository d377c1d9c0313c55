import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UNLIMITED } from '../helpers/context';
import { useTestContext } from '../helpers/setup';
import { item, order, stockOf } from '../orders/helpers';
import { floorOf, seedPlacedProducts } from './helpers';

/*
 * For products with slots, the sum of a product's slots equals its stock after any sequence of
 * picks (waves made from the pool, picked in full or short, completed) and replenishments
 * (completed with any quantity, refused or not, or cancelled), and no slot goes below 0.
 */
const LOCATIONS = [
  { code: 'A-01', aisle: 1, position: 1 },
  { code: 'B-02', aisle: 2, position: 2 },
  { code: 'R-09', aisle: 4, position: 9 },
  { code: 'R-10', aisle: 4, position: 10 },
];
const PRODUCTS = ['SOAP', 'BRUSH'];

type Step =
  | { kind: 'wave'; lines: [number, number][]; shortBy: number }
  | { kind: 'replenish'; quantity: number }
  | { kind: 'cancel' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('wave' as const),
    // An order names each product once.
    lines: fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: PRODUCTS.length - 1 }), fc.integer({ min: 1, max: 6 })), {
      minLength: 1,
      maxLength: PRODUCTS.length,
      selector: ([product]) => product,
    }),
    shortBy: fc.integer({ min: 0, max: 2 }),
  }),
  fc.record({ kind: fc.constant('replenish' as const), quantity: fc.integer({ min: 1, max: 25 }) }),
  fc.record({ kind: fc.constant('cancel' as const) }),
);

describe('floor: slots and stock stay in step through picks and replenishments (property)', () => {
  const setup = useTestContext();

  it('keeps the sum of slots equal to stock, and every slot at 0 or more', { timeout: 240_000 }, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), fc.boolean(), async (steps, pickFromReserve) => {
        const { ctx } = setup;
        const tenant = await ctx.tenant(UNLIMITED);
        const floor = await floorOf(ctx, tenant, LOCATIONS);
        await seedPlacedProducts(tenant, PRODUCTS.map((externalId) => ({ externalId, stock: 40 })));
        expect((await floor.put('/settings', { pickFromReserve })).status).toBe(200);
        const slots = PRODUCTS.flatMap((productExternalId, i) => [
          { productExternalId, locationCode: i === 0 ? 'A-01' : 'B-02', quantity: 6, min: 2, max: 10 },
          { productExternalId, locationCode: 'R-09', quantity: 20, role: 'reserve' },
          { productExternalId, locationCode: 'R-10', quantity: 14, role: 'reserve' },
        ]);
        expect((await floor.put('/slots', { slots })).status).toBe(200);

        for (const [index, action] of steps.entries()) {
          if (action.kind === 'wave') {
            const placed = await tenant.api.post('/orders', order(`P-${++run}-${index}`, action.lines.map(([product, quantity]) => item(PRODUCTS[product]!, quantity))));
            expect(placed.status, JSON.stringify(placed.body)).toBe(201);
            const made = await floor.post('/waves', {});
            if (made.status === 409) continue;
            expect(made.status, JSON.stringify(made.body)).toBe(201);
            let short = action.shortBy;
            for (const stop of made.body.data.stops) {
              for (const line of stop.lines) {
                const quantity = Math.max(line.quantity - short, 0);
                short -= line.quantity - quantity;
                const picked = await floor.post(`/waves/${made.body.data.id}/picks`, {
                  orderExternalId: line.orderExternalId,
                  productExternalId: line.productExternalId,
                  quantity,
                  locationCode: stop.locationCode,
                });
                expect(picked.status, JSON.stringify(picked.body)).toBe(200);
              }
            }
            expect((await floor.post(`/waves/${made.body.data.id}/complete`)).status).toBe(200);
          } else {
            const [task] = (await floor.get('/replenishments?status=OPEN')).body.data;
            if (!task) continue;
            const answer =
              action.kind === 'cancel' ? await floor.post(`/replenishments/${task.id}/cancel`) : await floor.post(`/replenishments/${task.id}/complete`, { quantity: action.quantity });
            expect([200, 409]).toContain(answer.status);
          }

          for (const product of PRODUCTS) {
            const held = (await floor.get(`/slots?productExternalId=${product}`)).body.data.map((slot) => slot.quantity);
            expect(held.every((quantity) => quantity >= 0)).toBe(true);
            expect(held.reduce((sum, quantity) => sum + quantity, 0)).toBe(await stockOf(tenant, product));
          }
        }
      }),
      { numRuns: 15 },
    );
  });
});
