import type { Executor } from '../db';
import { findLayout } from './layout-store';
import { placesOf } from './locations';
import { MAX_EXACT_TASKS, tripLength, type TaskRoute } from './plan/replenishment-route';
import type { Planner } from './planner/planner';
import { tasksForTrip, type TripTask } from './replenishment';

/**
 * How many tasks one trip takes: the first in line (the task in hand first), so that the tasks
 * orders wait for always come; never more than the exact route takes.
 */
export const TRIP_TASKS = Math.min(10, MAX_EXACT_TASKS);

export interface Trip {
  /** The trip's tasks in walking order; tasks with a location not placed on the layout after them, first in line first. */
  tasks: TripTask[];
  /** The walk of the routed tasks, depot to depot; null while the warehouse has no layout. */
  distance: number | null;
  /** Whether the order is proven the shortest walk (false: first in line, the planner could not answer in time). */
  exact: boolean;
  /** OPEN tasks not in this trip: they come once it is done. */
  waiting: number;
}

/**
 * A user's next replenishment trip: the task they hold and the first OPEN tasks in line, at most
 * TRIP_TASKS, in the order of the shortest walk that does each whole (reserve, then face; the task
 * in hand first), computed on the planner's threads. When the planner cannot answer by the
 * deadline, the tasks come first in line (`exact: false`).
 */
export async function loadTrip(db: Executor, planner: Planner, tenantId: string, userId: string, deadline: number): Promise<Trip> {
  const [{ tasks, open }, layout] = await Promise.all([tasksForTrip(db, tenantId, userId, TRIP_TASKS), findLayout(db, tenantId)]);
  const waiting = open - tasks.filter((task) => task.status === 'OPEN').length;
  if (!layout) return { tasks, distance: null, exact: false, waiting };
  const codes = [...new Set(tasks.flatMap((task) => [task.fromLocationCode, task.toLocationCode]))];
  const places = await placesOf(db, tenantId, codes);
  const placed = tasks.filter((task) => places.has(task.fromLocationCode) && places.has(task.toLocationCode));
  const unplaced = tasks.filter((task) => !placed.includes(task));
  const walks = placed.map((task) => ({ from: places.get(task.fromLocationCode)!, to: places.get(task.toLocationCode)! }));
  const inHand = placed[0]?.status === 'IN_PROGRESS' ? 0 : undefined;
  const inLine = (): TaskRoute => {
    const order = placed.map((_, index) => index);
    return { order, distance: tripLength(layout, walks, order), exact: false };
  };
  const route = await planner.run('routeReplenishments', [layout, walks, inHand], { deadline, quick: inLine });
  return { tasks: [...route.order.map((index) => placed[index]!), ...unplaced], distance: route.distance, exact: route.exact, waiting };
}
