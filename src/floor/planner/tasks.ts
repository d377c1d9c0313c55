import { planCarts, urgencyCost } from '../plan/cart-plan';
import { withDeadline } from '../plan/deadline';
import { nearestItemsRoute, routeItems } from '../plan/items';
import { planWaveLines } from '../plan/wave-lines';
import { routeReplenishments } from '../plan/replenishment-route';
import { walkPlannedCarts } from '../plan/slotting';
import { routePicks } from '../plan/walks';

/*
 * The floor's CPU-heavy computations, as the planner's threads run them: each a pure function of
 * plain data (what crosses between threads is copied), by name. A task runs with its request's
 * deadline: past it, a search answers with the best it has found (`exact: false`).
 */
export const PLANNER_TASKS = {
  routeItems,
  nearestItemsRoute,
  routePicks,
  planCarts,
  urgencyCost,
  planWaveLines,
  walkPlannedCarts,
  routeReplenishments,
};

export type PlannerTasks = typeof PLANNER_TASKS;
export type TaskName = keyof PlannerTasks;

/** A task as it is sent to a thread. */
export interface PlannerTask<K extends TaskName = TaskName> {
  name: K;
  args: Parameters<PlannerTasks[K]>;
  /** Milliseconds since the epoch; Infinity: none. */
  deadline: number;
}

/** Runs a task on this thread. */
export function runTask<K extends TaskName>({ name, args, deadline }: PlannerTask<K>): ReturnType<PlannerTasks[K]> {
  const task = PLANNER_TASKS[name] as unknown as (...args: Parameters<PlannerTasks[K]>) => ReturnType<PlannerTasks[K]>;
  return withDeadline(deadline, () => task(...args));
}
