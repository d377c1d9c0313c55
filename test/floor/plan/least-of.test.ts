import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leastOf } from '../../../src/floor/plan/walks/least-of';

describe('leastOf (property)', () => {
  it('chooses what a stable sort by key cut to the count chooses, in the same order, ties included', () => {
    // Few distinct keys, so that ties at the cut are common; each item remembers where it stood.
    const key = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: true, min: -1e6, max: 1e6 }), fc.constant(Infinity));
    fc.assert(
      fc.property(fc.array(key, { maxLength: 200 }), fc.nat({ max: 220 }), (keys, count) => {
        const items = keys.map((value, at) => ({ value, at }));
        const sorted = [...items].sort((a, b) => (a.value === b.value ? 0 : a.value - b.value));
        expect(leastOf(items, count, (item) => item.value)).toEqual(sorted.slice(0, count));
      }),
      { numRuns: 500 },
    );
  });
});
