import { aisleX, backY, middleCrossAisleYs, positionY, type Layout, type Place } from './layout';
import { minimalCover, searchCovers, WalkLengths, type ScatteredProblem } from './cover-search';
import { CollectingTours, type CollectingFloor, type TrackedValuesToGo } from './walks/collecting';
import { prepareCovering, shortestCoveringTour, type CoveringProblem } from './walks/covering';
import { leastOf } from './walks/least-of';
import { MAX_DP_CROSS_AISLES } from './walks/optimal';
import { pastDeadline } from './deadline';
import { mulberry32 } from './random';

/*
 * Which places to take items from when each item stands at several (the single picker routing
 * problem with scattered storage), so that the walk through them is shortest.
 *
 * The bound is Lagrangian: the demands move into the objective with a price per unit of each
 * item, which leaves a tour paid for the units it passes, at most the demand in each part of a
 * subaisle (walks/collecting.ts, exact and as fast as the dynamic program for fixed places). Any prices give a lower bound on
 * the shortest walk; subgradient steps raise it. Where the first node's bound stalls close to
 * the best walk, the items its tour is paid for beyond their demand are tracked (paid at most
 * their demand over the whole tour) and the prices raised again. Walks come from collecting tours that cover
 * every demand, from covers completed greedily and measured by the exact tour through their
 * places, from ruining and recreating the best walk aisle by aisle, and from taking each aisle's
 * items out of the best walk and putting them back where the walk is shortest given the rest
 * (the covering dynamic program over those items alone, exact for them); a walk left unproven
 * is searched for again on narrower floors (without the aisles from its outermost ones
 * outwards), then improved by large-neighbourhood search over the choice of places (cover-search.ts),
 * from the best walk and from the first greedy cover, then by putting a few items chosen at
 * random back the same exact way, round after round. Branch and bound (a
 * subaisle walked into or not used, then a place visited or not used) closes the gap where it
 * can within 40% of the allowance; where it cannot, the covering dynamic program
 * (walks/covering.ts), bounded by the root's prices and the places and subaisles every cover
 * visits, and by values to go that each cover a few of the dearest items exactly and price the rest,
 * settles the rest within three quarters of it or the walk stays unproven. Where the units to
 * take have few combinations, that program is asked before branching: first with no prices (it
 * settles such walks before the bound's subgradient steps would have converged), then, once
 * the first node has required the places every cover visits, with its prices.
 * Tour lengths on most floors are multiples of one length (1 on a floor measured in whole metres),
 * so a bound rounds up to the next multiple.
 */

export interface ScatteredChoice {
  /** Indexes of the places to visit. */
  places: number[];
  /** Length of the shortest walk through them. */
  distance: number;
  /** Whether no choice of places that covers the demands has a shorter walk. */
  exact: boolean;
}

/**
 * Work the search may spend, in transitions of the collecting tour: a count, not a clock, so that a
 * route is the same on every run. The other steps are counted at what they cost next to such a
 * transition, so that the allowance takes about the same time whatever the search spends it on (what it
 * takes in time is in docs/benchmarks.md).
 */
export const SEARCH_WORK = 38_000_000;
/** Subgradient steps at the first node, and at every node after. */
const ROOT_STEPS = 150;
const NODE_STEPS = 30;
/** Steps without a better bound after which the step length halves. */
const STALL_STEPS = 10;
/** Halvings after which a node's bound is taken as it is: smaller steps seldom raise it. */
const MAX_HALVINGS = 5;
/** Places measured by the exact walk when completing a cover, of those that look cheapest to add. */
const CANDIDATES_MEASURED = 4;
/** Rounds of ruin and recreate over the aisles of the best walk (and of putting items back). */
const REBUILD_ROUNDS = 3;
/** Searches on a narrower floor on each side of the depot, at most: without the best walk's outermost aisle, then its two outermost. */
const NARROWED_AISLES = 2;
/** The share of the allowance each search on a narrower floor may spend. */
const NARROWED_SHARE = 0.1;
/** Items put back at once at most: the covering dynamic program's states double with each. */
const REINSERTED_AT_MOST = 10;
/** The share of the allowance past which ruin and recreate (and putting items back aisle by aisle) stop. */
const REBUILD_SHARE = 0.85;
/** Exact walks the large-neighbourhood search may measure from each start. */
const NEIGHBOURS_MEASURED = 200;
/** An exact walk through a set of places, measured, counted as this many transitions: on one block, on two. */
const MEASURE_COST = [3_000, 15_000];
/** A walk measured by the large-neighbourhood search, its repair included: on one block, on two. */
const NEIGHBOUR_COST = [19_000, 35_000];
/** The narrow covering run's part of what the allowance leaves the covering dynamic program. */
const BEAM_PART = 0.1;
/** A covering step (a pass tried, with its share of keeping labels) costs about as much as this many transitions of the collecting tour. */
const COVERING_PASS_COST = 4;
/** A collecting tour's values to go cost about this many times its transitions. */
const TO_GO_COST = 2;
/** Steps the covering dynamic program may take when it puts a few items back. */
const REINSERT_WORK = 500_000;
/** The share of the allowance branching may spend before the covering dynamic program takes over. */
const BRANCHING_SHARE = 0.4;
/** The share of the allowance the covering program's values to go that cover a few items exactly may cost at most, all of them. */
const COVERED_SHARE = 0.3;
/**
 * Combinations of units of the items each table of those values to go covers exactly, at most,
 * table by table, on one block and on two: the first takes the dearest items, each next the
 * dearest of the rest. Two blocks have many more frontier states, which each combination multiplies.
 */
const COVERED_COMBINATIONS = [[256, 128, 128], [16]];
/**
 * Combinations of units still to take at most for the covering dynamic program to be asked before
 * branching: up to here it settled every benchmark route, on both floors, in under 30% of the
 * allowance (docs/benchmarks.md).
 */
const DIRECTLY_COVERED = 4096;
/** The share of the allowance past which the covering dynamic program stops: the rest improves an unproven walk. */
const PROOF_SHARE = 0.75;
/** Combinations of units taken of the tracked items a collecting tour may carry in its state at most: its states multiply by them. */
const TRACKED_COMBINATIONS = 256;
/**
 * How far below the best walk, as a share of it, the first node's bound may stall for items to be
 * tracked: further below, tracking seldom closes the gap and takes the work branching needs.
 */
const TRACKING_GAP = 0.03;
/** The first node's tracked tours stop once this share of the allowance is spent (the bound so far stands). */
const TRACKING_SHARE = 0.5;
/** Labels the narrow covering search keeps past each aisle. */
const BEAM = 1000;
/** Rounds of putting a few items chosen at random back where the walk is shortest, at most (its share of the allowance may end them sooner). */
const REPAIR_ROUNDS = 300;
/** The share of the allowance those rounds may spend beyond what the search has spent before them, at least; they may spend what is left of the allowance. */
const REPAIR_SHARE = 0.1;
/** Combinations of units of the items put back at once in those rounds, at most: the covering program's states multiply by them. */
const REPAIRED_COMBINATIONS = 256;
/** Neighbouring aisles whose items are put back at once in those rounds, at most. */
const REPAIRED_AISLES = 3;
/** How far, in aisles, from a place of the best walk the items put back with its own may lie. */
const REPAIR_REACH = 3;

export function chooseScattered(problem: ScatteredProblem, work = SEARCH_WORK): ScatteredChoice {
  return new Search(problem, work).run();
}

interface Node {
  required: Uint8Array;
  forbidden: Uint8Array;
  /** By subaisle: 1 where the tour must walk in, 2 where it uses nothing (its places are forbidden). */
  entered: Uint8Array;
  prices: Float64Array;
}

/** A child of the node, with its own copies of what settling and branching mark. */
function childOf(node: Node, prices: Float64Array): Node {
  return { required: Uint8Array.from(node.required), forbidden: Uint8Array.from(node.forbidden), entered: Uint8Array.from(node.entered), prices: Float64Array.from(prices) };
}

class Search {
  private readonly floor: CollectingFloor | undefined;
  private readonly tours: CollectingTours | undefined;
  /** By place: its subaisle's number (aisle-major, then block). */
  private readonly subaisleOf: Int32Array;
  private readonly items: number;
  /** 1 or 2 where the search can prove (the floor's blocks), 2 beyond: what a measured walk costs. */
  private readonly blocks: number;
  private readonly grain: number;
  private best: { places: number[]; distance: number };

  private readonly walks: WalkLengths;
  /** The first cover, completed greedily from nothing. */
  private readonly greedy: number[];
  /** No price on any item: a collecting tour that only walks. */
  private readonly noPrices: Float64Array;
  /** Units by item that `covers` counts in, filled again on each call (it runs at every step of a bound). */
  private readonly covered: Float64Array;
  private spent = 0;
  /** The places of bound tours completed into covers so far, as keys. */
  private readonly completed = new Set<string>();
  /** Set when a bound could not be worked out within the allowance: its node was left open. */
  private gaveUp = false;

  constructor(
    private readonly problem: ScatteredProblem,
    private readonly budget: number,
  ) {
    const { layout } = problem;
    const crossYs = [0, ...middleCrossAisleYs(layout), backY(layout)];
    this.items = problem.demand.length;
    this.noPrices = new Float64Array(this.items);
    this.covered = new Float64Array(this.items);
    this.grain = grainOf(layout);
    this.blocks = Math.min(2, crossYs.length - 1);
    this.floor =
      crossYs.length <= Math.min(3, MAX_DP_CROSS_AISLES)
        ? {
            aisles: layout.aisles,
            depotAisle: layout.depotAisle,
            crossYs,
            spacing: layout.aisleSpacing,
            ys: problem.places.map((place) => positionY(layout, place.position)),
            candidates: candidatesByAisle(problem.places, layout, crossYs),
          }
        : undefined;
    this.tours = this.floor && new CollectingTours(this.floor, problem);
    this.walks = new WalkLengths(problem);
    this.subaisleOf = new Int32Array(problem.places.length);
    this.floor?.candidates.forEach((byBlock, aisle) => byBlock.forEach((places, block) => places.forEach((place) => (this.subaisleOf[place] = aisle * byBlock.length + block))));
    this.best = { places: [], distance: Infinity };
    this.greedy = this.cover(new Uint8Array(problem.places.length));
    this.improve(this.greedy);
  }

  run(): ScatteredChoice {
    // Beyond two blocks the collecting tour's states are too many: the greedy choice improved by local search, not proven.
    if (!this.floor) {
      this.searchNeighbours();
      return { ...this.best, exact: false };
    }
    if (this.settled()) return { ...this.best, exact: true };
    // Past the deadline, each step after the proof stops at once: the best walk so far is the answer.
    for (const step of [() => this.improveLocally(), () => this.searchNarrower(), () => this.searchNeighbours(), () => this.reinsertAtRandom()]) {
      if (pastDeadline()) break;
      step();
    }
    return { ...this.best, exact: false };
  }

  /** Branch and bound, and the covering dynamic program: true when the best walk is proven shortest. */
  private settled(): boolean {
    const all = this.problem.places.length;
    const subaisles = this.floor!.aisles * (this.floor!.crossYs.length - 1);
    const stack: Node[] = [{ required: new Uint8Array(all), forbidden: new Uint8Array(all), entered: new Uint8Array(subaisles), prices: new Float64Array(this.items) }];
    // Few combinations of units to take: the covering dynamic program settles the walk sooner than
    // branching would, asked unpriced before any bound, or once the first node has required the
    // places every cover visits (fewer units left to take), priced by its bound.
    if (this.fewLeftToCover(stack[0]!.required) && this.settledByCovering({ prices: this.noPrices, required: stack[0]!.required, entered: stack[0]!.entered })) return true;
    let root = true;
    /** The first node's prices, and the places and subaisles every cover visits: what bounds the covering dynamic program. */
    let rootBound: { prices: Float64Array; required: Uint8Array; entered: Uint8Array } | undefined;
    let coveringAsked = false;
    while (stack.length > 0 && !this.gaveUp && this.spent <= this.budget * BRANCHING_SHARE && !pastDeadline()) {
      const node = stack.pop()!;
      if (!this.settle(node)) continue;
      const outcome = this.bound(node, root ? ROOT_STEPS : NODE_STEPS, root);
      if (root && outcome) {
        rootBound = { prices: outcome.prices, required: node.required, entered: node.entered };
        this.improveLocally();
        if (this.fewLeftToCover(node.required)) {
          coveringAsked = true;
          if (this.settledByCovering(rootBound)) return true;
        }
      }
      root = false;
      if (!outcome) continue;
      const subaisle = this.branchSubaisle(node, outcome.passed, outcome.prices);
      if (subaisle !== undefined) {
        const closed = childOf(node, outcome.prices);
        closed.entered[subaisle] = 2;
        this.subaisleOf.forEach((at, place) => at === subaisle && (closed.forbidden[place] = 1));
        const walkedIn = childOf(node, outcome.prices);
        walkedIn.entered[subaisle] = 1;
        stack.push(closed, walkedIn);
        continue;
      }
      const place = this.branchPlace(node, outcome.passed, outcome.prices);
      if (place === undefined) continue;
      const without = childOf(node, outcome.prices);
      without.forbidden[place] = 1;
      const withIt = childOf(node, outcome.prices);
      withIt.required[place] = 1;
      stack.push(without, withIt);
    }
    if (stack.length === 0 && !this.gaveUp) return true;
    // Branching has not settled it: the covering dynamic program, bounded by what the root knows, may.
    return rootBound !== undefined && !coveringAsked && !this.gaveUp && !pastDeadline() && this.settledByCovering(rootBound);
  }

  /**
   * Searches again on narrower floors: on each side of the depot, the aisles from the best walk's
   * outermost one outwards are left out (then from its second outermost), and a shorter walk
   * found on the aisles left is kept. A walk that reaches far for a few items settles its other
   * items around that reach, and moves from it keep reaching there; on the narrower floor the
   * search starts over and takes those items nearer.
   */
  private searchNarrower(): void {
    const { places, layout } = this.problem;
    const aisles = [...new Set(this.best.places.map((place) => places[place]!.aisle))].sort((a, b) => a - b);
    const left = aisles.filter((aisle) => aisle < layout.depotAisle);
    const right = aisles.filter((aisle) => aisle > layout.depotAisle).reverse();
    for (let count = 1; count <= NARROWED_AISLES && !pastDeadline(); count++) {
      if (count <= left.length) this.searchWithout((aisle) => aisle <= left[count - 1]!);
      if (count <= right.length && !pastDeadline()) this.searchWithout((aisle) => aisle >= right[count - 1]!);
    }
  }

  /**
   * Branch and bound, the covering program and the moves after the first bound, on the floor
   * less the aisles `leftOut` (when the rest holds every demand), with a share of the allowance.
   */
  private searchWithout(leftOut: (aisle: number) => boolean): void {
    const { places, stock } = this.problem;
    const kept = places.flatMap((place, index) => (leftOut(place.aisle) ? [] : [index]));
    if (!this.covers(kept)) return;
    const narrower = new Search({ ...this.problem, places: kept.map((place) => places[place]!), stock: kept.map((place) => stock[place]!) }, this.budget * NARROWED_SHARE);
    if (!narrower.settled()) narrower.improveLocally();
    this.spent += narrower.spent;
    this.improve(narrower.best.places.map((place) => kept[place]!));
  }

  /** Ruin and recreate, then each item put back where it is best given the rest. */
  private improveLocally(): void {
    this.rebuild();
    this.reinsert();
  }

  /**
   * Large-neighbourhood search over the choice of places (cover-search.ts) from the best walk, then
   * from the first greedy cover: the two often settle in different aisles.
   */
  private searchNeighbours(): void {
    for (const start of [this.best.places, this.greedy]) {
      const found = searchCovers(this.problem, start, { seed: this.best.distance, measures: NEIGHBOURS_MEASURED });
      this.spent += found.measured * NEIGHBOUR_COST[this.blocks - 1]!;
      this.improve(found.places);
    }
  }

  /**
   * Large-neighbourhood search whose repair is exact: a few items of the best walk are taken out
   * and put back where the walk is shortest given the rest (`reinsertItems`), those it takes in one
   * to three neighbouring aisles, or about half of those it takes near one of its places. It
   * shortens walks the search over places leaves (its repair is an estimate of the walk, this one
   * the covering program), and more with both than with either alone.
   */
  private reinsertAtRandom(): void {
    const { places, stock, demand } = this.problem;
    const random = mulberry32(this.best.distance);
    const pick = (count: number) => Math.floor(random() * count);
    const until = Math.max(this.spent + REPAIR_SHARE * this.budget, this.budget);
    for (let round = 0; round < REPAIR_ROUNDS && this.spent < until && this.best.places.length > 0 && !pastDeadline(); round++) {
      const walk = this.best.places;
      let takenOut: number[];
      if (random() < 0.5) {
        const aisles = [...new Set(walk.map((place) => places[place]!.aisle))].sort((a, b) => a - b);
        const first = pick(aisles.length);
        const chosen = new Set(aisles.slice(first, first + 1 + pick(REPAIRED_AISLES)));
        takenOut = walk.filter((place) => chosen.has(places[place]!.aisle));
      } else {
        const aisle = places[walk[pick(walk.length)]!]!.aisle;
        takenOut = walk.filter((place) => Math.abs(places[place]!.aisle - aisle) <= REPAIR_REACH && random() < 0.5);
      }
      const items = [...new Set(takenOut.flatMap((place) => stock[place]!.map(({ item }) => item)))];
      // In random order, as many as the covering program's states allow.
      for (let i = items.length - 1; i > 0; i--) {
        const j = pick(i + 1);
        [items[i], items[j]] = [items[j]!, items[i]!];
      }
      const putBack: number[] = [];
      let combinations = 1;
      for (const item of items) {
        if (combinations * (demand[item]! + 1) > REPAIRED_COMBINATIONS) continue;
        combinations *= demand[item]! + 1;
        putBack.push(item);
      }
      if (putBack.length > 0) this.reinsertItems(putBack, until);
    }
  }

  /**
   * The dynamic program that tracks what is covered, bounded by the prices given (the first
   * node's, or none): true when it settles the shortest walk (finding a shorter one or proving
   * there is none). The places every cover visits are required of it, and its values to go walk
   * into the subaisles every cover walks into: they then count the walk there, which is most of
   * the bound where an item has too few units elsewhere.
   */
  private settledByCovering({ prices, required, entered }: { prices: Float64Array; required: Uint8Array; entered: Uint8Array }): boolean {
    const everyItem = this.problem.demand.map((_, item) => item);
    const { short, problem } = this.leftOver(everyItem, required);
    // The required places alone hold every demand: no cover is shorter than theirs.
    if (short.length === 0) {
      this.improve([...required.keys()].filter((place) => required[place]));
      return true;
    }
    const prepared = prepareCovering(problem);
    if (!prepared) return false;
    // The values to go of what is left: the required places' units are not paid for again.
    const shortPrices = Float64Array.from(short, (item) => prices[item]!);
    const { byBoundary: toGo, work } = new CollectingTours(this.floor!, problem).toGo(shortPrices, required, entered);
    this.spent += work * TO_GO_COST + prepared.work * COVERING_PASS_COST;
    const priced = shortPrices.some((price) => price > 0);
    // With no price on any item none is dearer than another: tables over a few taken at random cost more than they prune.
    const tables = priced ? this.coveredExactly(problem, shortPrices, required, entered) : [];
    const steps = () => Math.max(0, (this.budget * PROOF_SHARE - this.spent) / COVERING_PASS_COST);
    // Priced, a narrow search first, for a shorter walk to prune the full one by (both work on the
    // same passes). Unpriced, a partial tour's bound is little more than its length, so the narrow
    // search keeps nearly any labels, and costs more than it saves.
    if (priced) {
      const quick = shortestCoveringTour(prepared, shortPrices, toGo, this.boundLimit(), steps() * BEAM_PART, BEAM, tables);
      this.spent += quick.work * COVERING_PASS_COST;
      if (quick.found) this.improve(quick.places);
    }
    const outcome = shortestCoveringTour(prepared, shortPrices, toGo, this.boundLimit(), steps(), Infinity, tables);
    this.spent += outcome.work * COVERING_PASS_COST;
    if (outcome.found) this.improve(outcome.places);
    return outcome.found || outcome.proven;
  }

  /** Whether the units the `required` places leave to take have at most `DIRECTLY_COVERED` combinations. */
  private fewLeftToCover(required: Uint8Array): boolean {
    const { demand } = this.leftOver(this.problem.demand.map((_, item) => item), required).problem;
    return demand.reduce((product, want) => product * (want + 1), 1) <= DIRECTLY_COVERED;
  }

  /**
   * Values to go for the covering program that cover a few items exactly, a table for each few:
   * the first table's items those of dearest price, as many as keep their combinations of units
   * few, each next table's the dearest of the rest, each unit priced at the best walk's length,
   * so that a partial tour's rest must take what it still lacks of them; the other items keep
   * their prices. Prices however high still give a bound, and covering some items outright closes
   * much of the gap that pricing them leaves; a label is bounded by the largest of the tables'.
   * Tables stop when they would cost more than their share of the allowance or than the covering
   * program has left.
   */
  private coveredExactly(problem: CoveringProblem, prices: Float64Array, required: Uint8Array, entered: Uint8Array): TrackedValuesToGo[] {
    const { demand } = problem;
    const byPrice = demand.map((_, item) => item).sort((a, b) => prices[b]! - prices[a]!);
    const covered = new Set<number>();
    const tables: TrackedValuesToGo[] = [];
    const until = this.spent + this.budget * COVERED_SHARE;
    for (const most of COVERED_COMBINATIONS[this.blocks - 1]!) {
      const items: number[] = [];
      let combinations = 1;
      for (const item of byPrice) {
        if (covered.has(item) || combinations * (demand[item]! + 1) > most) continue;
        combinations *= demand[item]! + 1;
        items.push(item);
        covered.add(item);
      }
      if (items.length === 0) break;
      // Each table covers its own items; those of the tables before it keep their prices.
      const tablePrices = Float64Array.from(prices, (price, item) => (items.includes(item) ? this.best.distance : price));
      // Never more than the covering program has left: what it spends there, the program cannot.
      const allowed = Math.min(until, this.budget * PROOF_SHARE) - this.spent;
      if (allowed <= 0) break;
      const found = new CollectingTours(this.floor!, problem).trackedToGo(tablePrices, items, required, entered, allowed, prices);
      this.spent += found?.work ?? allowed;
      if (!found) break;
      tables.push(found);
    }
    return tables;
  }

  /**
   * What the covering program is asked once the `required` places are passed anyway: of `items`,
   * the units those places lack (`short`, numbered from 0 in its order), from the other places.
   * Fewer units wanted, fewer combinations of units taken for it to tell apart.
   */
  private leftOver(items: readonly number[], required: Uint8Array): { short: number[]; problem: CoveringProblem } {
    const { stock, demand } = this.problem;
    const asked = new Set(items);
    const wanted = new Map(items.map((item) => [item, demand[item]!]));
    stock.forEach((here, place) => {
      if (!required[place]) return;
      for (const { item, units } of here) if (asked.has(item)) wanted.set(item, wanted.get(item)! - units);
    });
    const short = items.filter((item) => wanted.get(item)! > 0);
    const number = new Map(short.map((item, index) => [item, index]));
    const shortStock = stock.map((here, place) => (required[place] ? [] : here.flatMap(({ item, units }) => (number.has(item) ? [{ item: number.get(item)!, units: Math.min(units, wanted.get(item)!) }] : []))));
    return { short, problem: { floor: this.floor!, stock: shortStock, demand: short.map((item) => wanted.get(item)!), required } };
  }

  /**
   * Takes the items of each aisle of the best walk out of it (the places that serve only them
   * are dropped, every other place stays) and puts them back where the walk is shortest, by the
   * covering dynamic program over those items alone: the best answer given the rest. Repeated
   * while it shortens the walk.
   */
  private reinsert(): void {
    for (let round = 0; round < REBUILD_ROUNDS; round++) {
      const before = this.best.distance;
      const byAisle = new Map<number, Set<number>>();
      for (const place of this.best.places) {
        const aisle = this.problem.places[place]!.aisle;
        const items = byAisle.get(aisle) ?? byAisle.set(aisle, new Set()).get(aisle)!;
        for (const { item } of this.problem.stock[place]!) items.add(item);
      }
      for (const items of byAisle.values()) {
        if (this.spent > this.budget * REBUILD_SHARE || pastDeadline()) return;
        if (items.size <= REINSERTED_AT_MOST) this.reinsertItems([...items]);
      }
      if (this.best.distance >= before) return;
    }
  }

  /**
   * Drops the places that serve only `items` from the best walk and covers them again where the
   * walk is shortest, unless the work spent reaches `until` first.
   */
  private reinsertItems(items: readonly number[], until = this.budget * REBUILD_SHARE): void {
    const { stock } = this.problem;
    const out = new Set(items);
    const required = new Uint8Array(stock.length);
    const kept = this.best.places.filter((place) => !stock[place]!.every(({ item }) => out.has(item)));
    for (const place of kept) required[place] = 1;
    const { short, problem } = this.leftOver(items, required);
    if (short.length === 0) return this.improve(kept);
    const prepared = prepareCovering(problem);
    if (!prepared) return;
    const { byBoundary: toGo, work } = this.tours!.toGo(this.noPrices, required);
    this.spent += work * TO_GO_COST + prepared.work * COVERING_PASS_COST;
    const left = (until - this.spent) / COVERING_PASS_COST;
    const outcome = shortestCoveringTour(prepared, new Float64Array(short.length), toGo, this.boundLimit(), Math.min(REINSERT_WORK - prepared.work, left));
    this.spent += outcome.work * COVERING_PASS_COST;
    if (outcome.found) this.improve([...new Set([...kept, ...outcome.places])]);
  }

  /**
   * Marks the places every cover left at the node must visit, and the subaisles it must walk
   * into (an item has too few units outside them); false when no cover is left.
   */
  private settle(node: Node): boolean {
    const { stock, demand } = this.problem;
    const capacity = new Float64Array(this.items);
    // By subaisle and item: the units its places open at the node hold.
    const held = new Float64Array(node.entered.length * this.items);
    stock.forEach((here, place) => {
      if (node.forbidden[place]) return;
      for (const { item, units } of here) {
        capacity[item]! += units;
        held[this.subaisleOf[place]! * this.items + item]! += units;
      }
    });
    if (demand.some((want, item) => capacity[item]! < want)) return false;
    stock.forEach((here, place) => {
      if (!node.forbidden[place] && here.some(({ item, units }) => capacity[item]! - units < demand[item]!)) node.required[place] = 1;
    });
    held.forEach((units, at) => {
      const item = at % this.items;
      if (units > 0 && capacity[item]! - units < demand[item]!) node.entered[Math.floor(at / this.items)] = 1;
    });
    return true;
  }

  /**
   * Raises the node's bound by subgradient steps. Undefined when the node cannot hold a walk
   * shorter than the best found; otherwise the prices of its best bound and the places that
   * bound's tour passed.
   */
  private bound(node: Node, steps: number, tracking: boolean): { prices: Float64Array; passed: Uint8Array } | undefined {
    const { demand, stock } = this.problem;
    const prices = Float64Array.from(node.prices);
    const gradient = new Float64Array(this.items);
    let bestBound = -Infinity;
    // The best bound's prices and tour, copied into these (a tour's own arrays are overwritten by the next).
    const bestPrices = Float64Array.from(prices);
    const bestPassed = new Uint8Array(stock.length);
    const bestCollected = new Float64Array(this.items);
    let tracked: number[] = [];
    /** The prices and tour of the best bound before tracking: what later nodes and the covering program start from. */
    let untracked: { prices: Float64Array; passed: Uint8Array } | undefined;
    let scale = 2;
    let sinceBetter = 0;
    let halvings = 0;
    for (let step = 0; step < steps; step++) {
      const allowed = tracked.length > 0 ? this.budget * TRACKING_SHARE - this.spent : this.budget - this.spent;
      const tour = this.tours!.tour(prices, node.required, node.forbidden, node.entered, allowed, tracked);
      if (!tour && tracked.length > 0) {
        this.spent = Math.max(this.spent, this.budget * TRACKING_SHARE);
        break;
      }
      if (!tour) {
        this.gaveUp = true;
        return undefined;
      }
      this.spent += tour.work;
      const bound = tour.value + demand.reduce((sum, want, item) => sum + prices[item]! * want, 0);
      gradient.forEach((_, item) => (gradient[item] = demand[item]! - tour.collected[item]!));
      const covers = this.covers(tour.passed, node.forbidden);
      if (covers && tour.length < this.best.distance) this.improve(tour.passed);
      else if (!covers && step % 5 === 0) this.completeOnce(tour.passed);
      if (bound > bestBound + 1e-9) {
        [bestBound, sinceBetter] = [bound, 0];
        bestPrices.set(prices);
        bestPassed.set(tour.passed);
        bestCollected.set(tour.collected);
      } else if (++sinceBetter >= STALL_STEPS) {
        [scale, sinceBetter] = [scale / 2, 0];
        if (++halvings >= MAX_HALVINGS) {
          // The prices have done what they can: at the first node, when the bound is near the best
          // walk, track the items the best tour is paid for too often and go on from its prices.
          const near = this.best.distance - this.roundUp(bestBound) <= TRACKING_GAP * this.best.distance;
          const more = tracking && near ? this.moreTracked(tracked, bestCollected) : tracked;
          if (more.length === tracked.length) break;
          untracked ??= { prices: Float64Array.from(bestPrices), passed: Uint8Array.from(bestPassed) };
          [tracked, halvings, scale, steps] = [more, 0, 2, step + steps];
          prices.set(bestPrices);
          continue;
        }
      }
      if (bestBound > this.boundLimit()) return undefined;
      const norm = gradient.reduce((sum, g) => sum + g * g, 0);
      if (norm === 0) return undefined;
      const length = (scale * (this.best.distance - bound)) / norm;
      prices.forEach((price, item) => (prices[item] = Math.max(0, price + length * gradient[item]!)));
    }
    return untracked ?? { prices: bestPrices, passed: bestPassed };
  }

  /**
   * The tracked items and, most paid for beyond its demand first, those the tour is paid for
   * beyond their demand, as long as the tracked units' combinations stay few.
   */
  private moreTracked(tracked: number[], collected: Float64Array): number[] {
    const { demand } = this.problem;
    const excess = (item: number) => (collected[item]! - demand[item]!) / demand[item]!;
    const candidates = demand.map((_, item) => item).filter((item) => excess(item) > 1e-9 && !tracked.includes(item));
    const more = [...tracked];
    let combinations = tracked.reduce((product, item) => product * (demand[item]! + 1), 1);
    for (const item of candidates.sort((a, b) => excess(b) - excess(a))) {
      if (combinations * (demand[item]! + 1) > TRACKED_COMBINATIONS) continue;
      combinations *= demand[item]! + 1;
      more.push(item);
    }
    return more;
  }

  /**
   * A subaisle to branch on (walked into, or unused): of those still open that the bound's tour
   * walks into, the one where it collects the most. Deciding subaisles first splits the walks far
   * more evenly than deciding single places.
   */
  private branchSubaisle(node: Node, passed: Uint8Array, prices: Float64Array): number | undefined {
    const collected = new Float64Array(node.entered.length);
    passed.forEach((flag, place) => {
      if (!flag || node.forbidden[place] || node.entered[this.subaisleOf[place]!]) return;
      for (const { item, units } of this.problem.stock[place]!) collected[this.subaisleOf[place]!]! += prices[item]! * units;
    });
    let choice: number | undefined;
    collected.forEach((value, subaisle) => {
      if (value > 0 && (choice === undefined || value > collected[choice]!)) choice = subaisle;
    });
    return choice;
  }

  /** A place to branch on: one of the least covered item's, passed by the best walk if it can be. */
  private branchPlace(node: Node, passed: Uint8Array, prices: Float64Array): number | undefined {
    const { demand, stock } = this.problem;
    const covered = new Float64Array(this.items);
    passed.forEach((flag, place) => {
      if (flag && !node.forbidden[place]) for (const { item, units } of stock[place]!) covered[item]! += units;
    });
    const open = (place: number) => !node.required[place] && !node.forbidden[place];
    const inBest = new Set(this.best.places);
    let choice: number | undefined;
    let worst = 0;
    for (let item = 0; item < this.items; item++) {
      const missing = (demand[item]! - covered[item]!) / demand[item]!;
      if (missing <= worst) continue;
      const places = stock.flatMap((here, place) => (open(place) && here.some((s) => s.item === item) ? [place] : []));
      if (places.length === 0) continue;
      worst = missing;
      choice = places.find((place) => inBest.has(place)) ?? places.reduce((a, b) => (this.reach(a) <= this.reach(b) ? a : b));
    }
    if (choice !== undefined) return choice;
    // Every demand covered yet the bound is short of the walk: decide a place the tour used most dearly.
    let dearest = -1;
    passed.forEach((flag, place) => {
      if (!flag || !open(place)) return;
      const value = stock[place]!.reduce((sum, { item, units }) => sum + prices[item]! * units, 0);
      if (choice === undefined || value > dearest) [choice, dearest] = [place, value];
    });
    return choice;
  }

  /** There and back from the nearer cross aisle of a place's block. */
  private reach(place: number): number {
    const y = this.floor?.ys[place] ?? positionY(this.problem.layout, this.problem.places[place]!.position);
    const crossYs = this.floor?.crossYs ?? [0, ...middleCrossAisleYs(this.problem.layout), backY(this.problem.layout)];
    let nearest = Infinity;
    for (const cross of crossYs) nearest = Math.min(nearest, Math.abs(cross - y));
    return 2 * nearest;
  }

  /**
   * Places that cover every demand, starting from the useful ones of `chosen`: while an item is
   * short, of the few places that look cheapest to add (there and back from the nearest aisle or
   * cross aisle already walked, per unit wanted), the one that lengthens the shortest walk least
   * per unit.
   */
  private cover(chosen: Uint8Array, avoiding?: number): number[] {
    const { stock, demand, places, layout } = this.problem;
    const covered = new Float64Array(this.items);
    const taken: number[] = [];
    const isTaken = new Uint8Array(places.length);
    const aislesWalked = new Set<number>([layout.depotAisle]);
    const take = (place: number) => {
      taken.push(place);
      isTaken[place] = 1;
      aislesWalked.add(places[place]!.aisle);
      for (const { item, units } of stock[place]!) covered[item]! += units;
    };
    const useful = (place: number) => {
      let sum = 0;
      for (const { item, units } of stock[place]!) sum += Math.min(units, Math.max(0, demand[item]! - covered[item]!));
      return sum;
    };
    chosen.forEach((flag, place) => flag && useful(place) > 0 && take(place));
    const extra = (place: number) => {
      let across = Infinity;
      for (const walked of aislesWalked) across = Math.min(across, Math.abs(aisleX(layout, walked) - aisleX(layout, places[place]!.aisle)));
      return 2 * across + this.reach(place);
    };
    for (;;) {
      const open: { place: number; units: number; estimate: number }[] = [];
      for (let place = 0; place < places.length; place++) {
        if (isTaken[place] || places[place]!.aisle === avoiding) continue;
        const units = useful(place);
        if (units > 0) open.push({ place, units, estimate: extra(place) / units });
      }
      if (open.length === 0) return taken;
      const now = this.measure(taken);
      const tried = leastOf(open, CANDIDATES_MEASURED, (candidate) => candidate.estimate);
      // Each candidate measured once (a lone one not at all); the first of the cheapest per unit wins.
      let best = tried[0]!.place;
      if (tried.length > 1) {
        let bestPerUnit = Infinity;
        for (const { place, units } of tried) {
          const perUnit = (this.measure([...taken, place]) - now) / units;
          if (perUnit < bestPerUnit) [best, bestPerUnit] = [place, perUnit];
        }
      }
      take(best);
    }
  }

  /**
   * Completes the places a bound's tour passed into a cover and keeps it if best, unless the same
   * places were completed before: the greedy completion would give the same cover, already kept
   * or beaten (and its walks are remembered, so the work counted is the same either way).
   */
  private completeOnce(passed: Uint8Array): void {
    const key = passed.join('');
    if (this.completed.has(key)) return;
    this.completed.add(key);
    this.improve(this.cover(passed));
  }

  /**
   * Ruin and recreate: for each aisle the best walk takes from, its places are left out and the
   * demands covered again from elsewhere; repeated while that shortens the walk.
   */
  private rebuild(): void {
    const { places } = this.problem;
    for (let round = 0; round < REBUILD_ROUNDS; round++) {
      const before = this.best.distance;
      for (const aisle of new Set(this.best.places.map((place) => places[place]!.aisle))) {
        if (this.spent > this.budget * REBUILD_SHARE || pastDeadline()) return;
        const kept = new Uint8Array(places.length);
        for (const place of this.best.places) if (places[place]!.aisle !== aisle) kept[place] = 1;
        this.improve(this.cover(kept, aisle));
      }
      if (this.best.distance >= before) return;
    }
  }

  /**
   * Keeps a cover of every demand if it is the best yet (anything else is ignored), after leaving
   * out the places the others make needless (farthest first): fewer places never lengthen the
   * shortest walk.
   */
  private improve(chosen: Uint8Array | number[]): void {
    const listed = chosen instanceof Uint8Array ? [...chosen.keys()].filter((place) => chosen[place]) : chosen;
    if (!this.covers(listed)) return;
    const places = minimalCover(this.problem, listed);
    const distance = this.measure(places);
    if (distance < this.best.distance) this.best = { places, distance };
  }

  /** Whether the places (a list, or flags by place, less the `forbidden`) hold every demand. */
  private covers(places: readonly number[] | Uint8Array, forbidden?: Uint8Array): boolean {
    const covered = this.covered.fill(0);
    const add = (place: number) => {
      if (!forbidden?.[place]) for (const { item, units } of this.problem.stock[place]!) covered[item]! += units;
    };
    if (places instanceof Uint8Array) places.forEach((flag, place) => flag && add(place));
    else places.forEach(add);
    return this.problem.demand.every((want, item) => covered[item]! >= want);
  }

  /** The exact shortest walk through the places, remembered. */
  private measure(places: readonly number[]): number {
    const before = this.walks.measured;
    const distance = this.walks.length(places);
    this.spent += (this.walks.measured - before) * MEASURE_COST[this.blocks - 1]!;
    return distance;
  }

  private roundUp(bound: number): number {
    return this.grain > 0 ? Math.ceil(bound / this.grain - 1e-6) * this.grain : bound;
  }

  /**
   * The largest bound that may still hide a walk shorter than the best: every walk is a whole
   * multiple of the grain, so a bound above the multiple before the best's rules it out (the
   * same as rounding the bound up and comparing, without rounding each of the covering
   * program's many bounds).
   */
  private boundLimit(): number {
    const below = this.best.distance - 1e-9;
    if (this.grain === 0) return below;
    return (Math.ceil(below / this.grain) - 1 + 1e-6) * this.grain;
  }
}

/** The candidates of each subaisle, front to back. */
function candidatesByAisle(places: readonly Place[], layout: Layout, crossYs: readonly number[]): number[][][] {
  const byAisle = Array.from({ length: layout.aisles }, () => crossYs.slice(1).map((): number[] => []));
  const order = places.map((place, index) => ({ index, aisle: place.aisle, y: positionY(layout, place.position) })).sort((a, b) => a.y - b.y);
  for (const { index, aisle, y } of order) {
    let block = 0;
    while (y > crossYs[block + 1]!) block++;
    byAisle[aisle - 1]![block]!.push(index);
  }
  return byAisle;
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
