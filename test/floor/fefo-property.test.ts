import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstTakeableDay } from '../../src/floor/plan/fefo';
import { UNLIMITED } from '../helpers/context';
import { useTestContext } from '../helpers/setup';
import { item, order } from '../orders/helpers';
import { actOnFirstTask, cancelStep, day, FACES_AND_RESERVE, floorOf, pickShortBy, replenishStep, seedPlacedProducts, waveStep, type TaskStep, type WaveStep } from './helpers';

/*
 * First expiry, first out over any sequence of slot writes (lots with and without expiries, some
 * expired or within minShelfLifeDays), waves made from the pool and picked (short picks among
 * them, which plan the missing units again) and replenishments completed or cancelled:
 *
 * - no part of a line takes a lot that expires before the first day a line may take (today plus
 *   minShelfLifeDays), and no task moves one;
 * - no part takes a lot while an eligible slot whose lot expires earlier stands unused: a slot is
 *   eligible for a line when its lot may be taken, it holds units no PICKING wave plans to take
 *   (the line's own wave included), it is of the tier the line takes from (pick faces; reserve
 *   only once the faces are used up, with pickFromReserve) and, for the units a short pick plans
 *   again, the line has no part at it yet. Undated lots and units without a lot come last.
 */
const PRODUCTS = ['MILK', 'EGGS'];

interface SlotRead {
  productExternalId: string;
  locationCode: string;
  lot: string | null;
  expiresOn: string | null;
  role: 'pick' | 'reserve';
  quantity: number;
}
interface Part {
  orderExternalId: string;
  productExternalId: string;
  locationCode: string;
  lot: string | null;
  expiresOn: string | null;
  quantity: number;
  pickedQuantity: number | null;
}
type WaveRead = { id: string; stops: { locationCode: string; lines: Omit<Part, 'locationCode'>[] }[] };

const slotOf = (locationCode: string, lot: string | null) => `${locationCode}/${lot ?? ''}`;
/** Where a slot stands in first expiry, first out: its date, undated and lot-less last. */
const dateOf = (slot: { expiresOn: string | null }) => slot.expiresOn ?? '~';
const partsOf = (wave: WaveRead): Part[] => wave.stops.flatMap((stop) => stop.lines.map((line) => ({ ...line, locationCode: stop.locationCode })));

const slotWrite = fc.uniqueArray(
  fc.record({
    location: fc.integer({ min: 0, max: FACES_AND_RESERVE.length - 1 }),
    lot: fc.option(fc.constantFrom('L1', 'L2', 'L3'), { nil: undefined }),
    expires: fc.option(fc.integer({ min: -2, max: 6 }), { nil: undefined }),
    quantity: fc.integer({ min: 0, max: 8 }),
  }),
  { minLength: 1, maxLength: 7, selector: (slot) => `${slot.location}/${slot.lot ?? ''}` },
);

type SlotsStep = { kind: 'slots'; product: number; slots: { location: number; lot: string | undefined; expires: number | undefined; quantity: number }[] };

const step: fc.Arbitrary<SlotsStep | WaveStep | TaskStep> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('slots' as const), product: fc.integer({ min: 0, max: PRODUCTS.length - 1 }), slots: slotWrite }), weight: 2 },
  { arbitrary: waveStep(PRODUCTS.length, 7, 3), weight: 3 },
  { arbitrary: replenishStep(12), weight: 1 },
  { arbitrary: cancelStep, weight: 1 },
);

/**
 * Checks the parts of `product` planned at `checked` against the slots as they stood (`slots`) and
 * the units every part of the wave plans at each (`planned`): each takes a takeable lot, and no
 * eligible slot of an earlier date is left with units free; a reserve part only once the faces
 * are used up, with pickFromReserve. `excluded(part)`: the slots not eligible for its line.
 */
function checkFefo(
  product: string,
  checked: readonly Part[],
  slots: readonly SlotRead[],
  planned: Map<string, number>,
  context: { firstDay: string; pickFromReserve: boolean; excluded(part: Part): Set<string> },
) {
  const mine = slots.filter((slot) => slot.productExternalId === product);
  const free = (slot: SlotRead) => slot.quantity - (planned.get(slotOf(slot.locationCode, slot.lot)) ?? 0);
  const takeable = (slot: SlotRead) => slot.expiresOn === null || slot.expiresOn >= context.firstDay;
  for (const part of checked) {
    const slot = mine.find((candidate) => candidate.locationCode === part.locationCode && candidate.lot === part.lot);
    expect(slot, `${product}: a part at ${slotOf(part.locationCode, part.lot)}, a slot of the product`).toBeDefined();
    expect(takeable(slot!), `${product}: lot ${part.lot} (expires ${slot!.expiresOn}) taken though the first day a line may take is ${context.firstDay}`).toBe(true);
    const excluded = context.excluded(part);
    const eligible = (candidate: SlotRead) => takeable(candidate) && !excluded.has(slotOf(candidate.locationCode, candidate.lot)) && free(candidate) > 0;
    const faces = mine.filter((candidate) => candidate.role === 'pick' && eligible(candidate));
    if (slot!.role === 'reserve') {
      expect(context.pickFromReserve, `${product}: a reserve part without pickFromReserve`).toBe(true);
      expect(faces.map((face) => slotOf(face.locationCode, face.lot)), `${product}: reserve taken while faces hold units free`).toEqual([]);
    }
    const earlier = mine.filter((candidate) => candidate.role === slot!.role && eligible(candidate) && dateOf(candidate) < dateOf(slot!));
    expect(
      earlier.map((candidate) => `${slotOf(candidate.locationCode, candidate.lot)} (${candidate.expiresOn})`),
      `${product}: ${slotOf(part.locationCode, part.lot)} (${slot!.expiresOn}) taken while earlier lots stand unused`,
    ).toEqual([]);
  }
}

/** The units each slot's parts plan to take: what was picked, once recorded. */
function plannedBy(parts: readonly Part[], product: string): Map<string, number> {
  const planned = new Map<string, number>();
  for (const part of parts.filter((candidate) => candidate.productExternalId === product)) {
    const key = slotOf(part.locationCode, part.lot);
    planned.set(key, (planned.get(key) ?? 0) + (part.pickedQuantity ?? part.quantity));
  }
  return planned;
}

describe('floor: first expiry, first out through slot writes, waves, short picks and replenishments (property)', () => {
  const setup = useTestContext();

  it('never takes a lot past its first takeable day, nor one while an eligible earlier lot stands unused', { timeout: 240_000 }, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 10 }), fc.boolean(), fc.integer({ min: 0, max: 2 }), async (steps, pickFromReserve, minShelfLifeDays) => {
        const { ctx } = setup;
        const tenant = await ctx.tenant(UNLIMITED);
        const floor = await floorOf(ctx, tenant, FACES_AND_RESERVE);
        await seedPlacedProducts(tenant, PRODUCTS.map((externalId) => ({ externalId, stock: 500, lotTracked: true })));
        expect((await floor.put('/settings', { pickFromReserve, minShelfLifeDays })).status).toBe(200);
        const firstDay = firstTakeableDay(new Date(), minShelfLifeDays);
        const allSlots = async (): Promise<SlotRead[]> => (await floor.get('/slots?limit=1000')).body.data;
        const wrote = await floor.put('/slots', {
          slots: PRODUCTS.flatMap((productExternalId) => [
            { productExternalId, locationCode: 'A-01', quantity: 4, lot: 'L1', expiresOn: day(3), min: 1, max: 8 },
            { productExternalId, locationCode: 'A-01', quantity: 3, lot: 'L0', expiresOn: day(-1), min: 1, max: 8 },
            { productExternalId, locationCode: 'B-02', quantity: 3, lot: 'L2', expiresOn: day(1), min: 1, max: 8 },
            { productExternalId, locationCode: 'B-02', quantity: 5, lot: 'L3', min: 1, max: 8 },
            { productExternalId, locationCode: 'R-09', quantity: 20, role: 'reserve', lot: 'L2', expiresOn: day(1) },
            { productExternalId, locationCode: 'R-10', quantity: 10, role: 'reserve', lot: 'L4', expiresOn: day(0) },
          ]),
        });
        expect(wrote.status, JSON.stringify(wrote.body)).toBe(200);

        for (const [index, action] of steps.entries()) {
          if (action.kind === 'slots') {
            // A location holding lots of the product holds no units without one: a pick there names its lot.
            const lotted = new Set(action.slots.filter((slot) => slot.lot !== undefined).map((slot) => slot.location));
            const slots = action.slots.filter((slot) => slot.lot !== undefined || !lotted.has(slot.location)).map(({ location, lot, expires, quantity }) => {
              const { code } = FACES_AND_RESERVE[location]!;
              const reserve = code.startsWith('R');
              return {
                locationCode: code,
                quantity,
                ...(reserve ? { role: 'reserve' } : { min: 1, max: 8 }),
                ...(lot === undefined ? {} : { lot, ...(expires === undefined ? {} : { expiresOn: day(expires) }) }),
              };
            });
            const written = await floor.put(`/products/${PRODUCTS[action.product]}/slots`, { slots });
            expect(written.status, JSON.stringify(written.body)).toBe(200);
          } else if (action.kind === 'wave') {
            const placed = await tenant.api.post('/orders', order(`F-${++run}-${index}`, action.lines.map(([product, quantity]) => item(PRODUCTS[product]!, quantity))));
            expect(placed.status, JSON.stringify(placed.body)).toBe(201);
            // No wave is PICKING here: the slots as they stand are free.
            const before = await allSlots();
            const made = await floor.post('/waves', {});
            if (made.status === 409) continue;
            expect(made.status, JSON.stringify(made.body)).toBe(201);
            const wave: WaveRead = made.body.data;
            for (const product of PRODUCTS) {
              const parts = partsOf(wave).filter((part) => part.productExternalId === product);
              checkFefo(product, parts, before, plannedBy(parts, product), { firstDay, pickFromReserve, excluded: () => new Set() });
            }
            // Parts picked in walking order, `shortBy` units short in all: a short pick plans the missing units again.
            await pickShortBy(floor, made.body.data, action.shortBy, async (before, after, line) => {
              const had = partsOf(before);
              const known = new Set(had.map((part) => JSON.stringify([part.orderExternalId, part.productExternalId, part.locationCode, part.lot])));
              const added = partsOf(after).filter((part) => !known.has(JSON.stringify([part.orderExternalId, part.productExternalId, part.locationCode, part.lot])));
              const lineHad = (part: Part) =>
                new Set(had.filter((other) => other.orderExternalId === part.orderExternalId && other.productExternalId === part.productExternalId).map((other) => slotOf(other.locationCode, other.lot)));
              checkFefo(line.productExternalId, added, await allSlots(), plannedBy(partsOf(after), line.productExternalId), { firstDay, pickFromReserve, excluded: lineHad });
            });
            expect((await floor.post(`/waves/${wave.id}/complete`)).status).toBe(200);
          } else {
            await actOnFirstTask(floor, action);
          }
          // No task asks to move a lot a line may not take.
          for (const task of (await floor.get('/replenishments?status=OPEN')).body.data) {
            if (task.expiresOn !== null) expect(task.expiresOn >= firstDay, `task of lot ${task.lot} expiring ${task.expiresOn}`).toBe(true);
          }
        }
      }),
      { numRuns: 30 },
    );
  });
});
