import { WORK_COST, type Budget } from './budget';
import { crossAisleYs, minimalCover, type ScatteredProblem } from './covers';
import { pastDeadline } from './deadline';
import { WalkLengths } from './incumbent';
import { aisleX, positionY, type Layout } from './layout';
import { mulberry32 } from './random';
import type { SearchContext } from './search-context';

/*
 * A short walk for items that stand at several places, found by large-neighbourhood search over
 * the choice of places: from a choice that covers every demand, take some of it out (the places
 * of a few neighbouring aisles, the deepest places of a subaisle, every place that holds one
 * item, or a random share), cover what is then short again from the places that look cheapest
 * to add given the rest, drop the places the others make needless, and keep the new choice when
 * its exact walk is no longer (a little longer early on, less and less so). Each place taken out
 * stays out of that repair unless nothing else holds what it held, so the search moves. Only
 * the new choice is measured by the exact route, so a round costs about one route: cheap next to
 * the proof phase (proof.ts), whose unproven walks it shortens, and on floors of three blocks or
 * more the one phase of the search that runs (scattered.ts).
 */

/** The problem's type, for the modules that name it here. */
export type { ScatteredProblem } from './covers';

export interface CoverSearchOptions {
  /** Seed of the random choices: the same seed gives the same walk. */
  seed: number;
  /** Exact walks the search may measure besides the start's (each costs about as much as one route through the places). */
  measures: number;
}

export interface CoverFound {
  places: number[];
  distance: number;
  /** Exact walks measured (remembered ones not counted). */
  measured: number;
}

/** How much longer than the current walk, as a share of it, a new choice may be at the start (falling to none at the end). */
const START_THRESHOLD = 0.02;
/** Neighbouring aisles taken out at once, at most. */
const AISLES_TAKEN_OUT = 3;
/** Share of the places taken out at once, at most. */
const SHARE_TAKEN_OUT = 0.5;
/** Spread of the random factor on each place's estimated cost, so that repeated repairs differ. */
const NOISE = 0.3;
/** Exact walks the large-neighbourhood search phase may measure from each start, at most. */
const MEASURED_PER_START = 200;

/**
 * The large-neighbourhood search phase: `searchCovers` from the incumbent, then from the first
 * greedy cover (the two often settle in different aisles), each with half of the budget.
 */
export function searchNeighbourhoods(context: SearchContext, budget: Budget): void {
  const { problem, incumbent } = context;
  const cost = WORK_COST.neighbour[context.blocks - 1]!;
  const starts = [incumbent.places, context.greedy()];
  starts.forEach((start, index) => {
    const part = budget.share(1 / (starts.length - index));
    // The start's own walk is measured too, and the walk found once more when it is offered.
    const measures = Math.min(MEASURED_PER_START, Math.floor((part.left() - WORK_COST.walk[context.blocks - 1]!) / cost) - 1);
    if (measures < 0 || budget.pastDeadline()) return;
    const found = searchCovers(problem, start, { seed: incumbent.distance, measures });
    part.charge(found.measured * cost);
    incumbent.offer(found.places);
  });
}

/**
 * The shortest walk the search finds from `start` (places that cover every demand), never longer
 * than the walk through `start` made minimal.
 */
export function searchCovers(problem: ScatteredProblem, start: readonly number[], options: CoverSearchOptions): CoverFound {
  const walks = new WalkLengths(problem, options.measures + 1);
  const search = new CoverSearch(problem, mulberry32(options.seed));
  let current = minimalCover(problem, start);
  let currentLength = walks.length(current);
  let best = { places: current, distance: currentLength };
  // A round measures one walk, none when its choice is remembered: rounds are counted too. Nothing wanted, nothing to search.
  for (let round = 0; round < options.measures && walks.left() > 0 && current.length > 0 && !pastDeadline(); round++) {
    const threshold = START_THRESHOLD * (1 - walks.measured / options.measures);
    const candidate = search.neighbour(current);
    const length = walks.length(candidate);
    if (length <= currentLength * (1 + threshold)) [current, currentLength] = [candidate, length];
    if (length < best.distance) best = { places: candidate, distance: length };
  }
  return { ...best, measured: walks.measured };
}

/** The ruin and repair steps, over one problem's geometry. */
class CoverSearch {
  private readonly ys: number[];
  /** By place: its subaisle (aisle-major, then block). */
  private readonly subaisleOf: number[];
  private readonly crossYs: number[];
  private readonly blocks: number;
  /** By item: the places that hold it. */
  private readonly holders: number[][];

  constructor(
    private readonly problem: ScatteredProblem,
    private readonly random: () => number,
  ) {
    const { layout, places, stock, demand } = problem;
    this.crossYs = crossAisleYs(layout);
    this.blocks = this.crossYs.length - 1;
    this.ys = places.map((place) => positionY(layout, place.position));
    this.subaisleOf = places.map((place, index) => {
      let block = 0;
      while (this.ys[index]! > this.crossYs[block + 1]!) block++;
      return (place.aisle - 1) * this.blocks + block;
    });
    this.holders = demand.map(() => []);
    stock.forEach((here, place) => here.forEach(({ item }) => this.holders[item]!.push(place)));
  }

  /** A neighbour of `chosen` (a minimal cover): part of it taken out, covered again and made minimal. */
  neighbour(chosen: readonly number[]): number[] {
    const out = this.ruin(chosen);
    const kept = chosen.filter((place) => !out.has(place));
    return minimalCover(this.problem, this.complete(kept, out));
  }

  /**
   * `chosen` and, while an item is short, the place that looks cheapest to add per unit it still
   * lacks (each estimate shaken a little by the random factor); a place in `avoiding` only for an
   * item no other place left holds.
   */
  complete(chosen: readonly number[], avoiding: ReadonlySet<number> = new Set()): number[] {
    const { stock, demand } = this.problem;
    const taken = [...new Set(chosen)];
    const inTaken = new Set(taken);
    const covered = new Float64Array(demand.length);
    for (const place of taken) for (const { item, units } of stock[place]!) covered[item]! += units;
    const useful = (place: number) => stock[place]!.reduce((sum, { item, units }) => sum + Math.min(units, Math.max(0, demand[item]! - covered[item]!)), 0);
    const onlyHolder = (place: number) =>
      stock[place]!.some(({ item }) => covered[item]! < demand[item]! && this.holders[item]!.every((other) => other === place || inTaken.has(other) || avoiding.has(other)));
    while (demand.some((want, item) => covered[item]! < want)) {
      const shape = new WalkShape(this, taken);
      let choice: number | undefined;
      let cheapest = Infinity;
      stock.forEach((_, place) => {
        const units = inTaken.has(place) ? 0 : useful(place);
        if (units === 0 || (avoiding.has(place) && !onlyHolder(place))) return;
        const estimate = (shape.added(place) / units) * (1 + NOISE * (this.random() - 0.5));
        if (estimate < cheapest) [choice, cheapest] = [place, estimate];
      });
      taken.push(choice!);
      inTaken.add(choice!);
      for (const { item, units } of stock[choice!]!) covered[item]! += units;
    }
    return taken;
  }

  /**
   * The places to take out: those of a few neighbouring aisles, the deepest of one subaisle's,
   * every one holding one item, or a random share of all.
   */
  private ruin(chosen: readonly number[]): Set<number> {
    const { places, stock } = this.problem;
    const pick = <T>(list: readonly T[]) => list[Math.floor(this.random() * list.length)]!;
    const kind = this.random();
    if (kind < 0.35) {
      const first = places[pick(chosen)]!.aisle;
      const last = first + Math.floor(this.random() * AISLES_TAKEN_OUT);
      return new Set(chosen.filter((place) => places[place]!.aisle >= first && places[place]!.aisle <= last));
    }
    if (kind < 0.6) {
      const subaisle = this.subaisleOf[pick(chosen)]!;
      const inIt = chosen.filter((place) => this.subaisleOf[place] === subaisle).sort((a, b) => this.depth(b) - this.depth(a));
      return new Set(inIt.slice(0, 1 + Math.floor(this.random() * inIt.length)));
    }
    if (kind < 0.85) {
      const item = pick(stock[pick(chosen)]!).item;
      return new Set(chosen.filter((place) => stock[place]!.some((held) => held.item === item)));
    }
    const share = this.random() * SHARE_TAKEN_OUT;
    return new Set(chosen.filter(() => this.random() < share));
  }

  /** How far a place stands from the nearer cross aisle of its block. */
  private depth(place: number): number {
    const block = this.subaisleOf[place]! % this.blocks;
    const y = this.ys[place]!;
    return Math.min(y - this.crossYs[block]!, this.crossYs[block + 1]! - y);
  }

  /** What a WalkShape needs of the geometry. */
  geometry(place: number): { aisle: number; subaisle: number; y: number; front: number; back: number } {
    const block = this.subaisleOf[place]! % this.blocks;
    return { aisle: this.problem.places[place]!.aisle, subaisle: this.subaisleOf[place]!, y: this.ys[place]!, front: this.crossYs[block]!, back: this.crossYs[block + 1]! };
  }

  get layout(): Layout {
    return this.problem.layout;
  }
}

/**
 * What a walk through some places looks like, roughly: the aisles it spans and, per subaisle, the
 * stretch between its front-most and back-most place. A place inside a stretch costs nothing to
 * add; past it, the way there and back from its end or from the nearer cross aisle; in a subaisle
 * not entered, there and back from the nearer cross aisle, and the way across to its aisle where
 * it lies outside the aisles spanned. A subaisle reached so far from either end that walking
 * through it is shorter is taken as walked through.
 */
class WalkShape {
  private readonly stretches = new Map<number, { from: number; to: number }>();
  private readonly left: number;
  private readonly right: number;

  constructor(
    private readonly search: CoverSearch,
    places: readonly number[],
  ) {
    const depot = search.layout.depotAisle;
    [this.left, this.right] = [depot, depot];
    for (const place of places) {
      const { aisle, subaisle, y } = search.geometry(place);
      [this.left, this.right] = [Math.min(this.left, aisle), Math.max(this.right, aisle)];
      const stretch = this.stretches.get(subaisle);
      if (stretch) [stretch.from, stretch.to] = [Math.min(stretch.from, y), Math.max(stretch.to, y)];
      else this.stretches.set(subaisle, { from: y, to: y });
    }
  }

  /** Roughly how much longer the walk gets with `place` added. */
  added(place: number): number {
    const { aisle, subaisle, y, front, back } = this.search.geometry(place);
    const stretch = this.stretches.get(subaisle);
    // Reached as far as this from either end, the subaisle is cheaper walked through: all of it is passed.
    if (stretch && 2 * Math.min(stretch.to - front, back - stretch.from) >= back - front) return 0;
    if (stretch) {
      if (y > stretch.to) return 2 * Math.min(y - stretch.to, back - y);
      if (y < stretch.from) return 2 * Math.min(stretch.from - y, y - front);
      return 0;
    }
    const layout = this.search.layout;
    const across = aisle < this.left ? aisleX(layout, this.left) - aisleX(layout, aisle) : aisle > this.right ? aisleX(layout, aisle) - aisleX(layout, this.right) : 0;
    return 2 * Math.min(y - front, back - y) + 2 * across;
  }
}
