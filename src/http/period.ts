import { validationError } from './errors';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A period of time: `from` included, `to` excluded. */
export interface Period {
  from: Date;
  to: Date;
}

/**
 * The period sent: `to` after `from` and at most `maxDays` later, else 400 naming `to` (as
 * `${at}to` for a period sent inside an object, such as `period.to`).
 */
export function checkedPeriod(sent: { from: string; to: string }, maxDays: number, at = ''): Period {
  const from = new Date(sent.from);
  const to = new Date(sent.to);
  if (to <= from) throw validationError([{ field: `${at}to`, message: `must be after ${at}from` }]);
  if (to.getTime() - from.getTime() > maxDays * DAY_MS) throw validationError([{ field: `${at}to`, message: `must be at most ${maxDays} days after ${at}from` }]);
  return { from, to };
}

/** The `days` up to `now`. */
export function lastDays(days: number, now = new Date()): Period {
  return { from: new Date(now.getTime() - days * DAY_MS), to: now };
}
