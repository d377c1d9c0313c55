import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UNLIMITED } from '../helpers/context';
import { useTestContext } from '../helpers/setup';
import { item, order, stockOf } from '../orders/helpers';
import { floorOf, seedPlacedProducts } from './helpers';

/*
 * For products with slots, the sum of a product's slots equals its stock after any sequence of
 * picks (waves made from the pool, picked in full, completed) and replenishments (completed with
 * any quantity, refused or not, or cancelled), and no slot goes below 0. Once a pick is short, the
 * slot it lowered to what was found keeps the slots at or below the stock.
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

  it('keeps the sum of slots equal to stock (at most it, after a short pick), and every slot at 0 or more', { timeout: 240_000 }, async () => {
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

        // A short pick lowers its slot to what was found, below the stock, until a count settles it.
        let foundShort = false;
        for (const [index, action] of steps.entries()) {
          if (action.kind === 'wave') {
            const placed = await tenant.api.post('/orders', order(`P-${++run}-${index}`, action.lines.map(([product, quantity]) => item(PRODUCTS[product]!, quantity))));
            expect(placed.status, JSON.stringify(placed.body)).toBe(201);
            const made = await floor.post('/waves', {});
            if (made.status === 409) continue;
            expect(made.status, JSON.stringify(made.body)).toBe(201);
            // Parts are picked in walking order, `shortBy` units short in all; a short pick may add stops.
            let short = action.shortBy;
            for (let wave = made.body.data; ; ) {
              const next = wave.stops.flatMap((stop) => stop.lines.filter((line) => line.pickedQuantity === null).map((line) => ({ stop, line })))[0];
              if (!next) break;
              const quantity = Math.max(next.line.quantity - short, 0);
              short -= next.line.quantity - quantity;
              if (quantity < next.line.quantity) foundShort = true;
              const picked = await floor.post(`/waves/${wave.id}/picks`, {
                orderExternalId: next.line.orderExternalId,
                productExternalId: next.line.productExternalId,
                quantity,
                locationCode: next.stop.locationCode,
              });
              expect(picked.status, JSON.stringify(picked.body)).toBe(200);
              wave = picked.body.data;
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
            const inSlots = held.reduce((sum, quantity) => sum + quantity, 0);
            if (foundShort) expect(inSlots).toBeLessThanOrEqual(await stockOf(tenant, product));
            else expect(inSlots).toBe(await stockOf(tenant, product));
          }
        }
      }),
      { numRuns: 15 },
    );
  });
});
