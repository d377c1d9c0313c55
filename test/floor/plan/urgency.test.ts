import { describe, expect, it } from 'vitest';
import { urgencyRanks } from '../../../src/floor/plan/urgency';

const day = (n: number) => new Date(Date.UTC(2030, 0, n));

describe('urgencyRanks', () => {
  it('ranks by priority level, then due date with none last, densely: equal priority and due date share a rank', () => {
    const ranks = urgencyRanks([
      { priorityLevel: 2, dueDate: null },
      { priorityLevel: 1, dueDate: day(2) },
      { priorityLevel: 0, dueDate: null },
      { priorityLevel: 1, dueDate: day(1) },
      { priorityLevel: 1, dueDate: null },
      { priorityLevel: 1, dueDate: day(1) },
      { priorityLevel: 3, dueDate: day(1) },
      { priorityLevel: 2, dueDate: null },
    ]);
    expect(ranks).toEqual([4, 2, 0, 1, 3, 1, 5, 4]);
  });

  it('a due date never outweighs priority: a low order due today is less urgent than a high one due never', () => {
    expect(urgencyRanks([{ priorityLevel: 3, dueDate: day(1) }, { priorityLevel: 1, dueDate: null }])).toEqual([1, 0]);
  });

  it('the same instant is the same due date, whatever Date holds it', () => {
    expect(urgencyRanks([{ priorityLevel: 2, dueDate: day(3) }, { priorityLevel: 2, dueDate: new Date(day(3).toISOString()) }])).toEqual([0, 0]);
  });

  it('an empty pool has no ranks', () => {
    expect(urgencyRanks([])).toEqual([]);
  });
});
