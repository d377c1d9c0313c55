import { WalkBuilder, type Floor, type Spot, type Walk } from './walk';

/*
 * The exact shortest tour: Ratliff & Rosenthal's dynamic program over aisles (Operations Research
 * 31(3), 1983). A tour is a connected multigraph of the aisle graph, every vertex of even degree,
 * that holds the depot and every pick; no edge of a shortest one is used more than twice. Aisle j
 * has a front end a_j and a back end b_j. Going left to right, a partial tour (aisles 1..j and the
 * cross-aisle edges from j to j+1) is summed up by the multiplicities of its two edges to aisle
 * j+1 and whether their ends are already connected. By parity (each component has an even number
 * of odd vertices) only Ratliff & Rosenthal's seven classes occur: nothing yet, finished, (1, 1)
 * connected, (2, 0), (0, 2), (2, 2) connected and (2, 2) in two components. Within an aisle only
 * six patterns can belong to a shortest tour: nothing, one traversal, two traversals, in and out
 * from the front, in and out from the back, and in and out from both ends leaving out the largest
 * gap between two picks. Constant states and choices per aisle: linear in the number of aisles.
 */

/** How an aisle's own edges meet its ends a_j and b_j, and whether they join the two. */
interface Shape {
  front: number;
  back: number;
  joinsEnds: boolean;
}
const SHAPES: Shape[] = [
  { front: 0, back: 0, joinsEnds: false }, // nothing
  { front: 1, back: 1, joinsEnds: true }, // one traversal
  { front: 2, back: 2, joinsEnds: true }, // two traversals
  { front: 2, back: 0, joinsEnds: false }, // in and out from the front
  { front: 0, back: 2, joinsEnds: false }, // in and out from the back
  { front: 2, back: 2, joinsEnds: false }, // in and out from both ends, the largest gap left out
];
const [NOTHING, ONCE, TWICE, FROM_FRONT, FROM_BACK, BOTH_ENDS] = [0, 1, 2, 3, 4, 5];

/** One of an aisle's possible patterns: its shape, its length, and the segment it leaves out (if any). */
interface AislePattern {
  shape: number;
  cost: number;
  /** Segment i runs from point i to point i + 1 of (a_j, spots..., b_j). */
  leftOut?: number;
}

function patterns(spots: readonly Spot[], back: number): AislePattern[] {
  const result: AislePattern[] = [
    { shape: ONCE, cost: back },
    { shape: TWICE, cost: 2 * back },
  ];
  if (spots.length === 0) {
    result.push({ shape: NOTHING, cost: 0 });
    return result;
  }
  result.push({ shape: FROM_FRONT, cost: 2 * spots[spots.length - 1]!.y, leftOut: spots.length });
  result.push({ shape: FROM_BACK, cost: 2 * (back - spots[0]!.y), leftOut: 0 });
  if (spots.length >= 2) {
    let gap = 1;
    for (let i = 2; i < spots.length; i++) {
      if (spots[i]!.y - spots[i - 1]!.y > spots[gap]!.y - spots[gap - 1]!.y) gap = i;
    }
    result.push({ shape: BOTH_ENDS, cost: 2 * (back - (spots[gap]!.y - spots[gap - 1]!.y)), leftOut: gap });
  }
  return result;
}

/** Multiplicity of each of an aisle's segments under a pattern. */
function segmentTimes(pattern: AislePattern, segmentCount: number): number[] {
  const times = pattern.shape === NOTHING ? 0 : pattern.shape === ONCE ? 1 : 2;
  return Array.from({ length: segmentCount }, (_, i) => (i === pattern.leftOut ? 0 : times));
}

const EMPTY = 0;
const FINISHED = 1;
/** States 2..19: edges to the next aisle, front f and back g (0..2), and whether their ends are in two components. */
function openState(front: number, back: number, split: boolean): number {
  return 2 + (front * 3 + back) * 2 + (split ? 1 : 0);
}
const STATES = 20;

/** Union-find over four nodes: the left front edge's component, the left back edge's, a_j, b_j. */
function componentsOf(leftFront: number, leftBack: number, leftSplit: boolean, joinsEnds: boolean): number[] {
  const parent = [0, 1, 2, 3];
  const find = (n: number): number => (parent[n] === n ? n : find(parent[n]!));
  const union = (a: number, b: number) => {
    parent[find(a)] = find(b);
  };
  if (leftFront > 0) union(0, 2);
  if (leftBack > 0) union(1, 3);
  if (leftFront > 0 && leftBack > 0 && !leftSplit) union(0, 1);
  if (joinsEnds) union(2, 3);
  return [find(2), find(3)];
}

/** The state after aisle j, or undefined when the choice cannot be part of a tour. */
function nextState(
  state: number,
  shape: Shape,
  rightFront: number,
  rightBack: number,
  isDepotAisle: boolean,
  nothingRequiredAfter: boolean,
): number | undefined {
  if (state === FINISHED) {
    const idle = shape.front === 0 && shape.back === 0 && rightFront === 0 && rightBack === 0 && !isDepotAisle;
    return idle ? FINISHED : undefined;
  }
  const open = state - 2;
  const leftFront = state === EMPTY ? 0 : Math.floor(open / 2 / 3);
  const leftBack = state === EMPTY ? 0 : Math.floor(open / 2) % 3;
  const leftSplit = state !== EMPTY && open % 2 === 1;
  const degreeA = leftFront + shape.front + rightFront;
  const degreeB = leftBack + shape.back + rightBack;
  if (degreeA % 2 === 1 || degreeB % 2 === 1) return undefined;
  if (isDepotAisle && degreeA === 0) return undefined;
  if (degreeA === 0 && degreeB === 0) return EMPTY;
  const [rootA, rootB] = componentsOf(leftFront, leftBack, leftSplit, shape.joinsEnds);
  const present = [...(degreeA > 0 ? [rootA] : []), ...(degreeB > 0 ? [rootB] : [])];
  const goingOn = [...(rightFront > 0 ? [rootA] : []), ...(rightBack > 0 ? [rootB] : [])];
  if (goingOn.length === 0) {
    const oneComponent = new Set(present).size === 1;
    return oneComponent && nothingRequiredAfter ? FINISHED : undefined;
  }
  // A component that does not reach the next aisle could never be joined to the rest.
  if (present.some((root) => !goingOn.includes(root))) return undefined;
  return openState(rightFront, rightBack, rightFront > 0 && rightBack > 0 && rootA !== rootB);
}

interface Transition {
  front: number;
  back: number;
  next: number;
}

/**
 * Every possible transition, worked out once: by state, shape, whether the aisle is the depot's
 * and whether nothing is required right of it. The dynamic program then only looks them up.
 */
const TRANSITIONS: Transition[][] = [];
const transitionsFor = (state: number, shape: number, isDepotAisle: boolean, nothingRequiredAfter: boolean) =>
  TRANSITIONS[((state * SHAPES.length + shape) * 2 + (isDepotAisle ? 1 : 0)) * 2 + (nothingRequiredAfter ? 1 : 0)]!;
for (let state = 0; state < STATES; state++) {
  for (const shape of SHAPES) {
    for (const isDepotAisle of [false, true]) {
      for (const nothingRequiredAfter of [false, true]) {
        const list: Transition[] = [];
        for (let front = 0; front <= 2; front++) {
          for (let back = 0; back <= 2; back++) {
            const next = nextState(state, shape, front, back, isDepotAisle, nothingRequiredAfter);
            if (next !== undefined) list.push({ front, back, next });
          }
        }
        TRANSITIONS.push(list);
      }
    }
  }
}

interface Solution {
  distance: number;
  aislePatterns: AislePattern[][];
  /** By aisle and state reached: the state before, the pattern and the edges to the next aisle that reach it best. */
  steps: { previous: number; pattern: number; front: number; back: number }[][];
}

function solve(floor: Floor): Solution {
  const lastRequired = Math.max(floor.depotAisle, floor.pickAisles[floor.pickAisles.length - 1] ?? 0);
  const aislePatterns = floor.spots.map((spots) => patterns(spots, floor.back));
  let costs = new Float64Array(STATES).fill(Infinity);
  costs[EMPTY] = 0;
  const steps: Solution['steps'] = [];
  for (let aisle = 1; aisle <= floor.aisles; aisle++) {
    const next = new Float64Array(STATES).fill(Infinity);
    const chosen: Solution['steps'][number] = [];
    const lastAisle = aisle === floor.aisles;
    const options = aislePatterns[aisle - 1]!;
    for (let state = 0; state < STATES; state++) {
      const before = costs[state]!;
      if (before === Infinity) continue;
      for (let pattern = 0; pattern < options.length; pattern++) {
        const { shape, cost } = options[pattern]!;
        for (const { front, back, next: after } of transitionsFor(state, shape, aisle === floor.depotAisle, aisle >= lastRequired)) {
          if (lastAisle && front + back > 0) continue;
          const total = before + cost + (front + back) * floor.spacing;
          if (total < next[after]!) {
            next[after] = total;
            chosen[after] = { previous: state, pattern, front, back };
          }
        }
      }
    }
    steps.push(chosen);
    costs = next;
  }
  return { distance: costs[FINISHED]!, aislePatterns, steps };
}

/** Length of the shortest tour, without building it. */
export function optimalDistance(floor: Floor): number {
  return floor.pickAisles.length === 0 ? 0 : solve(floor).distance;
}

export function optimalWalk(floor: Floor): Walk {
  const builder = new WalkBuilder(floor);
  if (floor.pickAisles.length === 0) return builder.finish();
  return tourWalk(floor, solve(floor), builder);
}

/** Builds the chosen multigraph, then walks an Euler tour of it from the depot (Hierholzer's algorithm). */
function tourWalk(floor: Floor, { aislePatterns, steps }: Solution, builder: WalkBuilder): Walk {
  // Vertices: per aisle a_j, its spots front to back, b_j.
  const vertices: { aisle: number; spot?: Spot; y: number }[] = [];
  const firstVertex: number[] = [];
  for (let aisle = 1; aisle <= floor.aisles; aisle++) {
    firstVertex.push(vertices.length);
    vertices.push({ aisle, y: 0 });
    for (const spot of floor.spots[aisle - 1]!) vertices.push({ aisle, spot, y: spot.y });
    vertices.push({ aisle, y: floor.back });
  }
  const edges: [number, number][] = [];
  const addEdge = (u: number, v: number, times: number) => {
    for (let t = 0; t < times; t++) edges.push([u, v]);
  };
  let state = FINISHED;
  for (let aisle = floor.aisles; aisle >= 1; aisle--) {
    const step = steps[aisle - 1]![state]!;
    const start = firstVertex[aisle - 1]!;
    const pointCount = floor.spots[aisle - 1]!.length + 2;
    segmentTimes(aislePatterns[aisle - 1]![step.pattern]!, pointCount - 1).forEach((times, i) => addEdge(start + i, start + i + 1, times));
    if (step.front > 0) addEdge(start, firstVertex[aisle]!, step.front);
    if (step.back > 0) addEdge(start + pointCount - 1, firstVertex[aisle]! + floor.spots[aisle]!.length + 1, step.back);
    state = step.previous;
  }

  const incident: number[][] = vertices.map(() => []);
  edges.forEach(([u, v], e) => {
    incident[u]!.push(e);
    incident[v]!.push(e);
  });
  const used = new Uint8Array(edges.length);
  const cursor = new Int32Array(vertices.length);
  const stack = [firstVertex[floor.depotAisle - 1]!];
  const circuit: number[] = [];
  while (stack.length > 0) {
    const v = stack[stack.length - 1]!;
    const around = incident[v]!;
    while (cursor[v]! < around.length && used[around[cursor[v]!]!]) cursor[v]!++;
    if (cursor[v]! === around.length) {
      circuit.push(stack.pop()!);
      continue;
    }
    const e = around[cursor[v]!]!;
    used[e] = 1;
    const [a, b] = edges[e]!;
    stack.push(a === v ? b : a);
  }
  for (const index of circuit) {
    const vertex = vertices[index]!;
    if (vertex.spot) builder.visit(vertex.aisle, vertex.spot);
    else builder.goTo(vertex.aisle, vertex.y);
  }
  return builder.finish();
}
