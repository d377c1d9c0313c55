import { pastDeadline } from './deadline';

/*
 * The work a search may spend (a work limit), counted in work units rather than time so that the
 * same problem gets the same answer on every run and every machine. One counter is shared by a
 * budget and every share made of it: work charged anywhere counts everywhere. A share ends no
 * later than the budget it is made of, so the search as a whole never passes its allowance.
 */
export class Budget {
  private constructor(
    private readonly counter: { spent: number },
    /** Where this budget started, and where it ends: work spent by the whole search. */
    private readonly start: number,
    private readonly end: number,
  ) {}

  /** A budget of `allowance` work units, nothing spent yet. */
  static of(allowance: number): Budget {
    return new Budget({ spent: 0 }, 0, allowance);
  }

  /** Work spent by the whole search so far. */
  get spent(): number {
    return this.counter.spent;
  }

  /** The work this budget allows from where it started. */
  get allowance(): number {
    return this.end - this.start;
  }

  /** The work spent since this budget started. */
  get used(): number {
    return this.counter.spent - this.start;
  }

  /** The work left before this budget ends (none once it is overdrawn). */
  left(): number {
    return Math.max(0, this.end - this.counter.spent);
  }

  /** Counts work done. */
  charge(work: number): void {
    this.counter.spent += work;
  }

  /** Whether the work is spent or the deadline has passed: the loops of a search stop on either. */
  exhausted(): boolean {
    return this.counter.spent >= this.end || pastDeadline();
  }

  /** Whether the search has passed its wall-clock deadline (deadline.ts). */
  pastDeadline(): boolean {
    return pastDeadline();
  }

  /** A budget of `fraction` of what is left now. */
  share(fraction: number): Budget {
    const spent = this.counter.spent;
    return new Budget(this.counter, spent, spent + fraction * this.left());
  }

  /** A budget that ends once `fraction` of this one's allowance is spent (counted from its start). */
  upTo(fraction: number): Budget {
    return new Budget(this.counter, this.start, Math.min(this.end, this.start + fraction * this.allowance));
  }

  /** A budget of `work` more from now, never past this one's end. */
  next(work: number): Budget {
    const spent = this.counter.spent;
    return new Budget(this.counter, spent, Math.min(this.end, spent + work));
  }
}

/**
 * What the steps of the search for items cost in work units, next to one transition of the
 * collecting tour (the unit), measured so that an allowance takes about the same time whatever it
 * is spent on (docs/routing.md, "Counting work, not time"). By floor: one block, two.
 */
export const WORK_COST = {
  /** An exact walk through a set of places, measured. */
  walk: [3_000, 15_000],
  /** A walk of the large-neighbourhood search, its repair included. */
  neighbour: [19_000, 35_000],
  /** A step of the covering dynamic program (a pass tried, with its share of keeping labels). */
  coveringStep: 4,
  /** A step of the collecting tour's values to go. */
  toGoStep: 2,
} as const;
