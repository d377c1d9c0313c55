/*
 * What the labelling dynamic programs over aisles share: the prize-collecting tours that track
 * items (decremental state-space relaxation, walks/collecting.ts) and the covering program
 * (walks/covering.ts). A label there is a frontier state of the dynamic program over aisles with a
 * resource added, the units taken of some items, packed into one number (the units code) so that
 * state and code key a label as one number; labels are dropped by dominance. Both step through
 * the same state space (walks/optimal.ts), whose transitions depend on the aisle's kind.
 */

/**
 * The units code: the units taken of each of some items (at most what is wanted of each) as the
 * digits of one mixed-radix number, item j's digit counting 0..wants[j] at place value radix[j].
 * Where one unit of each of up to 30 items is wanted, the digits are a word's bits (item j is bit
 * j), which one bitwise operation compares.
 */
export class UnitsCode {
  /** Place value of each item's digit. */
  readonly radix: number[] = [];
  /** How many codes there are: every code is below it. */
  readonly total: number;
  /** Whether the code is a word's bits, one per item. */
  readonly bits: boolean;

  constructor(readonly wants: readonly number[]) {
    let total = 1;
    for (const want of wants) {
      this.radix.push(total);
      total *= want + 1;
    }
    this.total = total;
    this.bits = wants.length <= 30 && wants.every((want) => want === 1);
  }

  /** The units of item j that `code` has taken. */
  unitsTaken(code: number, j: number): number {
    return this.bits ? (code >> j) & 1 : Math.floor(code / this.radix[j]!) % (this.wants[j]! + 1);
  }

  /** The code that has taken every unit wanted. */
  full(): number {
    return this.wants.reduce((sum, want, j) => sum + want * this.radix[j]!, 0);
  }

  /** Whether code `a` has taken no more units than `b` of every item. */
  noMore(a: number, b: number): boolean {
    if (this.bits) return (a & ~b) === 0;
    for (let j = 0; j < this.wants.length; j++) if (this.unitsTaken(a, j) > this.unitsTaken(b, j)) return false;
    return true;
  }
}

/** How labels are compared for dominance: within a group, the first `mostChecks` kept. */
export interface Dominance {
  /** The group a label is compared within (its frontier state). */
  groupOf(label: number): number;
  /** Whether label `kept`, taken before `label` and so no worse, dominates it. */
  dominates(kept: number, label: number): boolean;
  /** How many of the labels kept in its group a label is checked against, the first kept first: checking against all would cost more than it saves. */
  mostChecks: number;
  /** How many checks count as a step of work, rounded down for each label. */
  checksPerStep: number;
}

/**
 * Dominance: the labels none of those kept before them in their group dominates, taking them in
 * `order` (best first within each group). By group, groups in the order first met, each group's
 * labels in `order`'s. Adds the steps the checks count as to `counted`.
 */
export function undominated(order: readonly number[], { groupOf, dominates, mostChecks, checksPerStep }: Dominance, counted: { work: number }): number[][] {
  const byGroup = new Map<number, number[]>();
  for (const label of order) {
    const group = groupOf(label);
    const kept = byGroup.get(group) ?? byGroup.set(group, []).get(group)!;
    const checks = Math.min(kept.length, mostChecks);
    counted.work += Math.floor(checks / checksPerStep);
    let dominated = false;
    for (let k = 0; k < checks && !dominated; k++) dominated = dominates(kept[k]!, label);
    if (!dominated) kept.push(label);
  }
  return [...byGroup.values()];
}

/**
 * An aisle's kind, which the state space's transitions take: 1 for the depot's aisle, plus 2 from
 * the last aisle a tour must reach on (where it may close).
 */
export function aisleKind(aisle: number, depotAisle: number, lastRequired: number): number {
  return (aisle === depotAisle ? 1 : 0) + (aisle >= lastRequired ? 2 : 0);
}

/**
 * `array`, or a copy with room for `length` entries (twice as many as it had where that is more),
 * the new ones `fill`: the dynamic programs' typed columns grow as the state space numbers states.
 */
export function grownTo<T extends Uint8Array | Int32Array | Float64Array>(array: T, length: number, fill = 0): T {
  if (array.length >= length) return array;
  const grown = new (array.constructor as new (length: number) => T)(Math.max(length, 2 * array.length));
  if (fill !== 0) grown.fill(fill);
  grown.set(array);
  return grown;
}
