import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aisleKind, grownTo, undominated, UnitsCode } from '../../../src/floor/plan/walks/labels';

describe('the labelling machinery (property)', () => {
  it('a units code reads back the units it packs, its full code has every want, and it compares codes digit by digit', () => {
    const digits = fc.array(fc.record({ want: fc.integer({ min: 1, max: 4 }), a: fc.nat(4), b: fc.nat(4) }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(fc.boolean(), digits, (unitDemand, byItem) => {
        const units = new UnitsCode(byItem.map(({ want }) => (unitDemand ? 1 : want)));
        const takenA = byItem.map(({ a }, j) => Math.min(a, units.wants[j]!));
        const takenB = byItem.map(({ b }, j) => Math.min(b, units.wants[j]!));
        const codeOf = (taken: number[]) => taken.reduce((code, count, j) => code + count * units.radix[j]!, 0);
        expect(units.bits).toBe(units.wants.every((want) => want === 1));
        takenA.forEach((count, j) => expect(units.unitsTaken(codeOf(takenA), j)).toBe(count));
        expect(codeOf(takenA)).toBeLessThan(units.total);
        units.wants.forEach((want, j) => expect(units.unitsTaken(units.full(), j)).toBe(want));
        expect(units.noMore(codeOf(takenA), codeOf(takenB))).toBe(takenA.every((count, j) => count <= takenB[j]!));
      }),
      { numRuns: 300 },
    );
  });

  it('dominance keeps the labels none of the first kept of their group dominates, by group, and counts its checks', () => {
    const labels = fc.array(fc.record({ group: fc.nat(3), value: fc.nat(20), code: fc.nat(15) }), { maxLength: 40 });
    fc.assert(
      fc.property(labels, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 4 }), (all, mostChecks, checksPerStep) => {
        const order = all.map((_, i) => i).sort((x, y) => all[x]!.value - all[y]!.value);
        // A label that has no more value and a code with every bit of another's dominates it.
        const dominates = (kept: number, label: number) => (all[kept]!.code & all[label]!.code) === all[label]!.code;
        const counted = { work: 0 };
        const kept = undominated(order, { groupOf: (i) => all[i]!.group, dominates, mostChecks, checksPerStep }, counted);
        // The same, one group at a time.
        const groups = [...new Set(order.map((i) => all[i]!.group))];
        let work = 0;
        const expected = groups.map((group) => {
          const survivors: number[] = [];
          for (const i of order.filter((label) => all[label]!.group === group)) {
            const checked = survivors.slice(0, mostChecks);
            work += Math.floor(checked.length / checksPerStep);
            if (!checked.some((other) => dominates(other, i))) survivors.push(i);
          }
          return survivors;
        });
        expect(kept).toEqual(expected);
        expect(counted.work).toBe(work);
      }),
      { numRuns: 300 },
    );
  });

  it('a typed column grows to at least twice its length, keeping its entries and filling the rest', () => {
    const column = Int32Array.from([3, 1, 4]);
    expect(grownTo(column, 3)).toBe(column);
    expect([...grownTo(column, 4, -1)]).toEqual([3, 1, 4, -1, -1, -1]);
    expect([...grownTo(Float64Array.from([2]), 5, Infinity)]).toEqual([2, Infinity, Infinity, Infinity, Infinity]);
  });

  it("an aisle's kind marks the depot's aisle and the aisles from the last one a tour must reach", () => {
    expect([1, 2, 3, 4].map((aisle) => aisleKind(aisle, 2, 3))).toEqual([0, 1, 2, 2]);
    expect(aisleKind(3, 3, 3)).toBe(3);
  });
});
