import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { Piscina } from 'piscina';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { PlannerSettings } from '../../config';
import { ApiError } from '../../http/errors';
import { inSpan, type SpanNotes } from '../../http/tracing';
import type { PlannerTasks, TaskName } from './tasks';
import type { PlannerThreadData } from './worker';

/**
 * The share of the deadline kept for after the search: a search stops this much before the
 * request's deadline (at its next check), then still routes the walk it chose and sends it over,
 * so that its answer comes by the deadline, when a caller with a quick answer stops waiting.
 */
const FINISHING = 0.1;
/** Seconds a client is told to wait before retrying a request the planner could not take. */
const RETRY_AFTER_SECONDS = 1;

/** Where a planner thread starts: the built file beside the bundle, or the sources through tsx. */
function workerEntry(): { filename: string; execArgv: string[] } {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return { filename: new URL('./planner-worker.js', here).href, execArgv: [] };
  const tsx = pathToFileURL(createRequire(here).resolve('tsx')).href;
  return { filename: new URL('./worker.ts', here).href, execArgv: ['--import', tsx] };
}

export interface RunOptions<R> {
  /** When the request must have its answer (Date.now() milliseconds). */
  deadline: number;
  /**
   * The answer made on the request's own thread when the planner cannot give one in time: its
   * queue is full, or the deadline has passed. Without it, a full queue is 503 and the caller waits
   * for the thread, whose search stops before the deadline.
   */
  quick?: () => R;
}

/**
 * The floor's CPU-heavy work (routes, plans of carts, slotting replays) runs on a pool of worker
 * threads (piscina), never on the thread answering requests: a long search delays no health check
 * and no ERP call. A thread that dies is replaced; the request whose task it ran gets 503.
 */
export class Planner {
  readonly #pool: Piscina;
  readonly #deadlineMs: number;
  readonly #threads: number;
  readonly #quickAnswers: Counter<'reason'>;
  /** Tasks sent and not yet settled: waiting in the queue or running on a thread. */
  #inFlight = 0;

  constructor(settings: PlannerSettings, registry: Registry, log: FastifyBaseLogger) {
    this.#deadlineMs = settings.deadlineMs;
    this.#threads = settings.threads;
    this.#pool = new Piscina({ ...workerEntry(), workerData: { nice: settings.nice } satisfies PlannerThreadData, minThreads: settings.threads, maxThreads: settings.threads, maxQueue: settings.queue, idleTimeout: Infinity });
    // A thread that fails while running none of our tasks is replaced; the pool reports it here.
    this.#pool.on('error', (error: Error) => log.error({ err: error }, 'planner thread failed'));
    const pool = this.#pool;
    new Gauge({ name: 'pickport_planner_threads', help: 'Planner threads running', registers: [registry], collect() { this.set(pool.threads.length); } });
    new Gauge({ name: 'pickport_planner_queue_length', help: 'Planning tasks waiting for a thread', registers: [registry], collect() { this.set(pool.queueSize); } });
    const busy = () => Math.min(pool.threads.length, this.#inFlight - pool.queueSize);
    new Gauge({ name: 'pickport_planner_busy_threads', help: 'Planner threads running a task', registers: [registry], collect() { this.set(busy()); } });
    this.#quickAnswers = new Counter({
      name: 'pickport_planner_quick_answers_total',
      help: "Requests answered with the quick walk on the request's own thread, by reason (queue_full, deadline)",
      labelNames: ['reason'] as const,
      registers: [registry],
    });
    for (const reason of ['queue_full', 'deadline']) this.#quickAnswers.inc({ reason }, 0);
  }

  /** The deadline of a request's planning that starts now (PLANNER_DEADLINE_MS from now). */
  deadline(): number {
    return Date.now() + this.#deadlineMs;
  }

  /** Readiness: undefined while every thread runs, else how many do (one that died is being replaced). */
  readiness(): string | undefined {
    const running = this.#pool.threads.length;
    return running >= this.#threads ? undefined : `${running} of ${this.#threads} planner threads running`;
  }

  /** The threads, for a test that stops one as a crash would. */
  get threads(): readonly { terminate(): Promise<number> }[] {
    return this.#pool.threads;
  }

  /** Runs a task on a thread (see RunOptions for what a caller gets when the planner cannot); traced as a planning job. */
  run<K extends TaskName>(name: K, args: Parameters<PlannerTasks[K]>, options: RunOptions<ReturnType<PlannerTasks[K]>>): Promise<ReturnType<PlannerTasks[K]>> {
    const span = { 'pickport.planner.task': name, 'pickport.planner.quick_answer': false };
    return inSpan('planning job', span, (notes) => this.#run(name, args, options, notes));
  }

  async #run<K extends TaskName>(name: K, args: Parameters<PlannerTasks[K]>, options: RunOptions<ReturnType<PlannerTasks[K]>>, span?: SpanNotes): Promise<ReturnType<PlannerTasks[K]>> {
    type Answer = ReturnType<PlannerTasks[K]>;
    const { deadline, quick } = options;
    if (this.#pool.queueSize >= this.#pool.options.maxQueue) {
      if (!quick) throw new ApiError('SERVICE_UNAVAILABLE', 'The route planner is busy; retry later', undefined, RETRY_AFTER_SECONDS);
      this.#quickAnswers.inc({ reason: 'queue_full' });
      span?.set({ 'pickport.planner.quick_answer': true, 'pickport.planner.quick_reason': 'queue_full' });
      return quick();
    }
    this.#inFlight++;
    const searchDeadline = deadline - FINISHING * this.#deadlineMs;
    const task = (this.#pool.run({ name, args, deadline: searchDeadline }) as Promise<Answer>).finally(() => this.#inFlight--).catch(threadStopped);
    if (!quick) return task;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()));
    });
    try {
      const answer = await Promise.race([task, late]);
      if (answer !== 'late') return answer;
      // The thread's answer, when it comes, is dropped (its rejection too).
      task.catch(() => {});
      this.#quickAnswers.inc({ reason: 'deadline' });
      span?.set({ 'pickport.planner.quick_answer': true, 'pickport.planner.quick_reason': 'deadline' });
      return quick();
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops the threads (a task still running is abandoned). */
  async close(): Promise<void> {
    await this.#pool.destroy();
  }
}

/** A thread that exited (or was stopped) under a task, or a full queue: 503, the request may be retried. Any other error is the task's own. */
function threadStopped(error: unknown): never {
  if (error instanceof Error && (error.message.startsWith('worker exited') || error.message === 'Terminating worker thread')) {
    throw new ApiError('SERVICE_UNAVAILABLE', 'The planner thread working on this request stopped; retry the request', undefined, RETRY_AFTER_SECONDS);
  }
  if (error instanceof Error && error.message === 'Task queue is at limit') throw new ApiError('SERVICE_UNAVAILABLE', 'The route planner is busy; retry later', undefined, RETRY_AFTER_SECONDS);
  throw error;
}
