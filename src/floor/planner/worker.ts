import { setPriority } from 'node:os';
import { workerData } from 'piscina';
import { runTask, type PlannerTask } from './tasks';

/** What the pool hands each planner thread when it starts. */
export interface PlannerThreadData {
  /** The thread's nice value (PLANNER_NICE). */
  nice: number;
}

// Requests come first: on Linux each thread has its own nice value, and this one is raised above
// the request thread's, so that when they compete for a core the scheduler runs requests first.
// Where the system refuses, the thread keeps the process's priority.
try {
  setPriority((workerData as PlannerThreadData).nice);
} catch {
  // The search works the same, only with the request thread's priority.
}

/** A planner thread's entry (piscina calls the default export with each task). */
export default function planTask(task: PlannerTask): unknown {
  return runTask(task);
}
