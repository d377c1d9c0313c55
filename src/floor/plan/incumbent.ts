import type { Budget } from './budget';
import { minimalCover, type Covers, type ScatteredProblem, type WalkMeter } from './covers';
import type { Layout } from './layout';
import { SubsetRoutes } from './walks';

/** The exact shortest walk through sets of places, remembered by set. */
export class WalkLengths {
  private readonly known = new Map<string, number>();
  private readonly routes: SubsetRoutes;
  /** Walks measured, not counting those remembered. */
  measured = 0;

  constructor(
    problem: Pick<ScatteredProblem, 'layout' | 'places'>,
    private readonly allowed = Infinity,
  ) {
    this.routes = new SubsetRoutes(problem.layout, problem.places);
  }

  /** How many more walks may be measured. */
  left(): number {
    return this.allowed - this.measured;
  }

  length(places: readonly number[]): number {
    const key = [...places].sort((a, b) => a - b).join(',');
    let distance = this.known.get(key);
    if (distance === undefined) {
      this.measured++;
      distance = this.routes.length(places);
      this.known.set(key, distance);
    }
    return distance;
  }
}

export interface IncumbentOptions {
  covers: Covers;
  /** What measuring a walk is charged to. */
  budget: Budget;
  /** Work units one exact walk measured costs. */
  measureCost: number;
}

/**
 * The incumbent: the shortest walk that covers the order found so far, and the exact walks
 * measured on the way (each charged to the budget, once: they are remembered).
 */
export class Incumbent implements WalkMeter {
  places: number[] = [];
  distance = Infinity;
  private readonly walks: WalkLengths;
  /** A length every walk is a whole multiple of (0 when none is sure): bounds round up to it. */
  private readonly grain: number;

  constructor(
    private readonly problem: ScatteredProblem,
    private readonly options: IncumbentOptions,
  ) {
    this.walks = new WalkLengths(problem);
    this.grain = grainOf(problem.layout);
  }

  /** The exact shortest walk through the places. */
  walkLength(places: readonly number[]): number {
    const before = this.walks.measured;
    const distance = this.walks.length(places);
    this.options.budget.charge((this.walks.measured - before) * this.options.measureCost);
    return distance;
  }

  /** Whether the budget walks are charged to has work left. */
  canMeasure(): boolean {
    return !this.options.budget.exhausted();
  }

  /**
   * Keeps a cover of every demand if it is shorter than the incumbent (anything else is
   * ignored), after leaving out the places the others make needless: fewer places never
   * lengthen the shortest walk.
   */
  offer(chosen: Uint8Array | readonly number[]): void {
    const listed = chosen instanceof Uint8Array ? [...chosen.keys()].filter((place) => chosen[place]) : chosen;
    if (!this.options.covers.holdsEveryDemand(listed)) return;
    const places = minimalCover(this.problem, listed);
    const distance = this.walkLength(places);
    if (distance < this.distance) [this.places, this.distance] = [places, distance];
  }

  /** A lower bound rounded up to the next length a walk can have. */
  roundUp(bound: number): number {
    return this.grain > 0 ? Math.ceil(bound / this.grain - 1e-6) * this.grain : bound;
  }

  /**
   * The largest bound that may still hide a walk shorter than the incumbent: every walk is a
   * whole multiple of the grain, so a bound above the multiple before the incumbent's rules it
   * out (the same as rounding the bound up and comparing, without rounding each of the covering
   * program's many bounds).
   */
  boundLimit(): number {
    const below = this.distance - 1e-9;
    if (this.grain === 0) return below;
    return (Math.ceil(below / this.grain) - 1 + 1e-6) * this.grain;
  }
}

/**
 * A length every tour's length is a whole multiple of (0 when there is none to be sure of): the
 * greatest common divisor, in thousandths, of the lengths between neighbouring points of the floor.
 */
function grainOf(layout: Layout): number {
  const lengths = [layout.aisleSpacing, layout.positionSpacing, layout.crossAisleOffset];
  for (const { width } of layout.crossAisles ?? []) lengths.push((layout.positionSpacing + width) / 2);
  let grain = 0;
  for (const length of lengths) {
    const thousandths = Math.round(length * 1000);
    if (Math.abs(thousandths - length * 1000) > 1e-6) return 0;
    grain = gcd(grain, thousandths);
  }
  return grain / 1000;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
