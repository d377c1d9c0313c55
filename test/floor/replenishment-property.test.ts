import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UNLIMITED } from '../helpers/context';
import { useTestContext } from '../helpers/setup';
import { item, order, stockOf } from '../orders/helpers';
import { actOnFirstTask, cancelStep, FACES_AND_RESERVE, floorOf, pickShortBy, replenishStep, seedPlacedProducts, waveStep, type TaskStep, type WaveStep } from './helpers';

/*
 * For products with slots, the sum of a product's slots equals its stock after any sequence of
 * picks (waves made from the pool, picked in full, completed) and replenishments (completed with
 * any quantity, refused or not, or cancelled), and no slot goes below 0. Once a pick is short, the
 * slot it lowered to what was found keeps the slots at or below the stock.
 */
const PRODUCTS = ['SOAP', 'BRUSH'];

const step: fc.Arbitrary<WaveStep | TaskStep> = fc.oneof(waveStep(PRODUCTS.length, 6, 2), replenishStep(25), cancelStep);

describe('floor: slots and stock stay in step through picks and replenishments (property)', () => {
  const setup = useTestContext();

  it('keeps the sum of slots equal to stock (at most it, after a short pick), and every slot at 0 or more', { timeout: 240_000 }, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), fc.boolean(), async (steps, pickFromReserve) => {
        const { ctx } = setup;
        const tenant = await ctx.tenant(UNLIMITED);
        const floor = await floorOf(ctx, tenant, FACES_AND_RESERVE);
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
            if (await pickShortBy(floor, made.body.data, action.shortBy)) foundShort = true;
            expect((await floor.post(`/waves/${made.body.data.id}/complete`)).status).toBe(200);
          } else {
            await actOnFirstTask(floor, action);
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
