import { describe, expect, it } from 'vitest';
import { firstTakeableDay } from '../../src/floor/plan/fefo';
import { fefoItemNeeds, LOT_MIN_SHELF_LIFE_DAYS, LOT_TODAY, withLots } from '../../bench/lots';
import { sprpInstances } from '../helpers/sprp';

describe("the lots the floor bench gives the benchmark's scattered instances", () => {
  // Seed 0 of varying demand, about 13 cells an article, 15 articles: 195 slots or so.
  const instance = sprpInstances(1).find(({ name }) => name === 'varying_F5_m10_C60_a15_0.txt')!;
  const slots = (needs: ReturnType<typeof withLots>) => needs.flatMap((need) => need.slots);

  it('are the same for the same seed, and other for another', () => {
    expect(withLots(instance.needs, 7)).toEqual(withLots(instance.needs, 7));
    expect(withLots(instance.needs, 8)).not.toEqual(withLots(instance.needs, 7));
  });

  it('put a lot at every slot, keep the places and units, and make several slots share an expiry date', () => {
    const lotted = withLots(instance.needs, 7);
    expect(slots(lotted).map(({ place: { code, aisle, position }, quantity }) => ({ code, aisle, position, quantity }))).toEqual(
      slots(instance.needs).map(({ place: { code, aisle, position }, quantity }) => ({ code, aisle, position, quantity })),
    );
    expect(slots(lotted).every(({ place }) => place.lot !== undefined)).toBe(true);
    const sharing = lotted.filter((need) => new Set(need.slots.map((slot) => slot.place.expiresOn)).size < need.slots.length);
    expect(sharing.length).toBeGreaterThan(lotted.length / 2);
  });

  it('hold expired lots, lots within the minimum shelf life and undated ones, which FEFO leaves or takes last', () => {
    const firstDay = firstTakeableDay(new Date(`${LOT_TODAY}T00:00:00Z`), LOT_MIN_SHELF_LIFE_DAYS);
    const dates = slots(withLots(instance.needs, 7)).map(({ place }) => place.expiresOn);
    expect(dates.filter((date) => date !== undefined && date < LOT_TODAY).length).toBeGreaterThan(0);
    expect(dates.filter((date) => date !== undefined && date >= LOT_TODAY && date < firstDay).length).toBeGreaterThan(0);
    expect(dates.filter((date) => date === undefined).length).toBeGreaterThan(0);

    const needs = fefoItemNeeds(withLots(instance.needs, 7));
    const given = slots(needs);
    expect(given.every(({ place }) => place.expiresOn === undefined || place.expiresOn >= firstDay)).toBe(true);
    // Each need is one expiry date; an article's needs come earliest first and add up to its quantity.
    for (const need of needs) expect(new Set(need.slots.map((slot) => slot.place.expiresOn ?? '~')).size).toBeLessThanOrEqual(1);
    for (const article of instance.needs) {
      const its = needs.filter((need) => need.item.startsWith(`${article.item}@`));
      expect(its.reduce((sum, need) => sum + need.quantity, 0)).toBe(article.quantity);
      const firstDates = its.filter((need) => need.slots.length > 0).map((need) => need.slots[0]!.place.expiresOn ?? '~');
      expect(firstDates).toEqual([...firstDates].sort());
    }
    expect(given.length).toBeLessThan(slots(instance.needs).length);
  });
});
