import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NumberIndex } from '../../../src/floor/plan/walks/number-index';

describe('NumberIndex (property)', () => {
  it('answers as a Map would, for whole numbers up to 2^53, across growth and clearing', () => {
    const key = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.maxSafeNat());
    const operation = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key, value: fc.nat({ max: 2 ** 31 - 1 }) }),
      fc.record({ kind: fc.constant('get' as const), key }),
      fc.record({ kind: fc.constant('clear' as const) }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 300 }), (operations) => {
        const index = new NumberIndex(4);
        const map = new Map<number, number>();
        for (const op of operations) {
          if (op.kind === 'set') {
            index.set(op.key, op.value);
            map.set(op.key, op.value);
          } else if (op.kind === 'clear') {
            index.clear();
            map.clear();
          } else expect(index.get(op.key)).toBe(map.get(op.key) ?? -1);
        }
        for (const [key, value] of map) expect(index.get(key)).toBe(value);
      }),
      { numRuns: 300 },
    );
  });
});
