import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodeBook } from '../../../src/floor/plan/walks/code-book';

describe('the book of combinations numbered as met (property)', () => {
  it('gives one code to each combination, the same however it is built, and reads its units back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }).chain((items) => fc.tuple(fc.constant(items), fc.array(fc.array(fc.integer({ min: 0, max: CodeBook.MOST_UNITS }), { minLength: items, maxLength: items }), { maxLength: 1500 }))), ([items, combinations]) => {
        const book = new CodeBook(items);
        const codeOf = new Map<string, number>([[new Array<number>(items).fill(0).join(','), 0]]);
        let previous = 0;
        for (const units of combinations) {
          // Built from the previous combination, item by item in reverse: the code depends on the units alone (past a thousand codes the book grows).
          book.open(previous);
          for (let item = items - 1; item >= 0; item--) book.raise(item, units[item]!);
          const code = book.close();
          const key = units.join(',');
          expect(code).toBe(codeOf.get(key) ?? codeOf.size);
          codeOf.set(key, code);
          units.forEach((taken, item) => expect(book.unitsTaken(code, item)).toBe(taken));
          previous = code;
        }
        expect(book.count).toBe(codeOf.size);
      }),
      { numRuns: 40 },
    );
  });

  it('numbers the combinations of as many items as keep their hashes exact, and no more', () => {
    expect(CodeBook.holds(8_224)).toBe(true);
    expect(CodeBook.holds(8_225)).toBe(false);
  });
});
