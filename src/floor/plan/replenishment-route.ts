import { positionY, type Layout, type Place } from './layout';
import { walkLength } from './progress';
import { floorOf, type Point } from './walks/walk';

/*
 * The walking order of a replenishment trip. Whoever replenishes carries one product at a time:
 * each task is walked whole, its reserve slot then its pick face, before the next task starts. The
 * trip starts and ends at the depot. Its length is the sum of the fixed walks from each reserve to
 * its face and of the walks from a face to the next task's reserve, so the order is a shortest
 * Hamiltonian path over the tasks: solved exactly by Held and Karp's dynamic program over subsets,
 * each walk between two places being the shortest one along aisles and cross aisles.
 */

/** Where a task takes its units (the reserve slot) and where it puts them (the pick face). */
export interface TaskPlaces {
  from: Place;
  to: Place;
}

export interface TaskRoute {
  /** Indexes into the tasks given, in walking order. */
  order: number[];
  /** Depot, each task's reserve then face in that order, depot; in the layout's unit. */
  distance: number;
  /** Whether `distance` is proven the shortest there is. */
  exact: boolean;
}

/** The most tasks the dynamic program takes (its table has 2^n × n entries: 49,152 for 12). */
export const MAX_EXACT_TASKS = 12;

/** The walks a trip is made of, as plain numbers: from the depot, task by task, back to it. */
function walksOf(layout: Layout, tasks: readonly TaskPlaces[]) {
  const floor = floorOf(layout, []);
  const point = (place: Place): Point => ({ aisle: place.aisle, y: positionY(layout, place.position) });
  const depot: Point = { aisle: layout.depotAisle, y: 0 };
  const from = tasks.map((task) => point(task.from));
  const to = tasks.map((task) => point(task.to));
  return {
    /** Depot to task i's reserve. */
    out: from.map((place) => walkLength(floor, depot, place)),
    /** Task i's reserve to its face. */
    carry: tasks.map((_, i) => walkLength(floor, from[i]!, to[i]!)),
    /** Task i's face to task j's reserve. */
    between: to.map((face) => from.map((reserve) => walkLength(floor, face, reserve))),
    /** Task i's face back to the depot. */
    home: to.map((face) => walkLength(floor, face, depot)),
  };
}

/** The length of the trip walking the tasks in `order`, depot to depot (0 for none). */
export function tripLength(layout: Layout, tasks: readonly TaskPlaces[], order: readonly number[]): number {
  if (order.length === 0) return 0;
  const walks = walksOf(layout, tasks);
  let distance = walks.out[order[0]!]! + walks.home[order.at(-1)!]!;
  order.forEach((task, step) => {
    distance += walks.carry[task]!;
    if (step > 0) distance += walks.between[order[step - 1]!]![task]!;
  });
  return distance;
}

/**
 * The shortest trip through the tasks, each walked reserve then face, depot to depot; with
 * `first`, the task in hand, that one first. At most MAX_EXACT_TASKS tasks.
 */
export function routeReplenishments(layout: Layout, tasks: readonly TaskPlaces[], first?: number): TaskRoute {
  const n = tasks.length;
  if (n > MAX_EXACT_TASKS) throw new Error(`a trip routes at most ${MAX_EXACT_TASKS} tasks exactly, not ${n}`);
  if (n === 0) return { order: [], distance: 0, exact: true };
  const walks = walksOf(layout, tasks);
  const full = (1 << n) - 1;
  // best[mask * n + last]: the shortest walk from the depot doing the tasks of `mask`, `last` the last one.
  const best = new Float64Array((full + 1) * n).fill(Infinity);
  const previous = new Int8Array((full + 1) * n).fill(-1);
  for (let task = 0; task < n; task++) {
    if (first === undefined || task === first) best[(1 << task) * n + task] = walks.out[task]! + walks.carry[task]!;
  }
  for (let mask = 1; mask <= full; mask++) {
    for (let last = 0; last < n; last++) {
      const here = best[mask * n + last]!;
      if (here === Infinity) continue;
      for (let next = 0; next < n; next++) {
        if (mask & (1 << next)) continue;
        const to = (mask | (1 << next)) * n + next;
        const walked = here + walks.between[last]![next]! + walks.carry[next]!;
        if (walked < best[to]!) {
          best[to] = walked;
          previous[to] = last;
        }
      }
    }
  }
  let last = 0;
  for (let task = 1; task < n; task++) if (best[full * n + task]! + walks.home[task]! < best[full * n + last]! + walks.home[last]!) last = task;
  const distance = best[full * n + last]! + walks.home[last]!;
  const order: number[] = [];
  for (let mask = full, task = last; task >= 0; ) {
    order.push(task);
    const before = previous[mask * n + task]!;
    mask &= ~(1 << task);
    task = before;
  }
  return { order: order.reverse(), distance, exact: true };
}
