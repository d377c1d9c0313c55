/** What makes an order urgent: its priority's level (0 urgent, 1 high, 2 medium or none, 3 low) and its due date. */
export interface Urgency {
  priorityLevel: number;
  dueDate: Date | null;
}

/**
 * Each order's `PoolOrder.urgency`: the dense rank of its priority level, then of its due date (none
 * last), 0 the most urgent. Orders of the same priority and due date share a rank: the planner may
 * put either first, while an order never waits for a less urgent one. Age is no part of it; it only
 * orders the pool.
 */
export function urgencyRanks(orders: readonly Urgency[]): number[] {
  const keys = orders.map(({ priorityLevel, dueDate }) => ({ priorityLevel, due: dueDate === null ? Infinity : dueDate.getTime() }));
  const name = (key: (typeof keys)[number]) => `${key.priorityLevel}|${key.due}`;
  const ranks = new Map<string, number>();
  const sorted = [...keys].sort((a, b) => a.priorityLevel - b.priorityLevel || (a.due === b.due ? 0 : a.due < b.due ? -1 : 1));
  for (const key of sorted) if (!ranks.has(name(key))) ranks.set(name(key), ranks.size);
  return keys.map((key) => ranks.get(name(key))!);
}
