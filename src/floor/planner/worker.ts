import { runTask, type PlannerTask } from './tasks';

/** A planner thread's entry (piscina calls the default export with each task). */
export default function planTask(task: PlannerTask): unknown {
  return runTask(task);
}
