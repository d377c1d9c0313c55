/*
 * The wall-clock deadline of the search running on this thread. The searches are synchronous, so
 * the one running is the only one that can ask: `withDeadline` sets it for the length of one call
 * and the searches' loops ask `pastDeadline` where they already check their allowance of work.
 * Without a deadline (tests, benches) nothing reads the clock, and a search is reproducible.
 */

let deadline = Infinity;

/** Runs `search` with a deadline (milliseconds since the epoch, as Date.now() counts). */
export function withDeadline<T>(at: number, search: () => T): T {
  const outer = deadline;
  deadline = Math.min(outer, at);
  try {
    return search();
  } finally {
    deadline = outer;
  }
}

/** Whether the search running now has passed its deadline: it then answers with the best it has. */
export function pastDeadline(): boolean {
  return deadline !== Infinity && Date.now() >= deadline;
}
