import { aisleX, backY, positionY } from '../src/floor/plan/layout';
import type { ScatteredProblem } from '../src/floor/plan/cover-search';

/*
 * The single picker routing problem with scattered storage on a one-block floor as a mixed
 * integer program, for a general MIP solver to be measured against our own search.
 *
 * The tour is a path through Ratliff and Rosenthal's states, aisle by aisle: after an aisle's own
 * edges, and after the front and back cross-aisle edges to the next aisle (each used 0, 1 or 2
 * times), a state records of the aisle's two ends whether the tour touches them, the parity of
 * their degree, and whether they are already joined, or that the tour is closed. An aisle is
 * walked through once or twice, or entered from the front, the back, or both and left the way it
 * came. How deep each entry reaches is a ladder of binaries over the aisle's places (deeper only
 * after shallower), paid for each step; a place is visited when its aisle is walked through or
 * an entry reaches it, and each item's visited units must meet its demand. Without the demands
 * the path's polytope is integral, so the LP bound is the Lagrangian bound of the demands.
 */

type Vertical = 'none' | 'through' | 'through twice' | 'front' | 'back' | 'both';
const VERTICALS: readonly Vertical[] = ['none', 'through', 'through twice', 'front', 'back', 'both'];

/** Of an aisle's front and back ends: touched, degree odd, joined to each other; or the tour closed, or not yet begun. */
type State = { kind: 'empty' } | { kind: 'closed' } | { kind: 'open'; front: End; back: End; joined: boolean };
type End = 'untouched' | 'even' | 'odd';

const keyOf = (state: State) => (state.kind === 'open' ? `${state.front}${state.back}${state.joined ? 'j' : ''}` : state.kind);

function afterVertical(state: State, vertical: Vertical): State | undefined {
  if (vertical === 'none') return state;
  if (state.kind === 'closed') return undefined;
  const [front, back] = state.kind === 'open' ? [state.front, state.back] : (['untouched', 'untouched'] as const);
  const joined = state.kind === 'open' && state.joined;
  const touch = (end: End, odd: boolean): End => (odd ? (end === 'odd' ? 'even' : 'odd') : end === 'untouched' ? 'even' : end);
  const through = vertical === 'through' || vertical === 'through twice';
  return {
    kind: 'open',
    front: through || vertical === 'front' || vertical === 'both' ? touch(front, vertical === 'through') : front,
    back: through || vertical === 'back' || vertical === 'both' ? touch(back, vertical === 'through') : back,
    joined: joined || through,
  };
}

/** The state at the next aisle's ends after `frontUses` and `backUses` of the cross-aisle edges; undefined where an end left behind is odd or a part of the tour is cut off. */
function afterCross(state: State, frontUses: number, backUses: number): State | undefined {
  if (state.kind !== 'open') return frontUses === 0 && backUses === 0 ? state : undefined;
  const { front, back, joined } = state;
  if ((front === 'untouched' && frontUses > 0) || (back === 'untouched' && backUses > 0)) return undefined;
  if ((front === 'odd') !== (frontUses === 1) || (back === 'odd') !== (backUses === 1)) return undefined;
  const frontGoesOn = front !== 'untouched' && (frontUses > 0 || (joined && backUses > 0));
  const backGoesOn = back !== 'untouched' && (backUses > 0 || (joined && frontUses > 0));
  const parts = front !== 'untouched' && back !== 'untouched' && !joined ? 2 : 1;
  const cutOff = (front !== 'untouched' && !frontGoesOn) || (back !== 'untouched' && !backGoesOn);
  if (cutOff) return parts === 1 && frontUses === 0 && backUses === 0 ? { kind: 'closed' } : undefined;
  const end = (uses: number): End => (uses === 0 ? 'untouched' : uses === 1 ? 'odd' : 'even');
  return { kind: 'open', front: end(frontUses), back: end(backUses), joined: frontUses > 0 && backUses > 0 && (joined || parts === 1) };
}

/** The depot stands at the front end of its aisle: the tour touches it whatever the aisle's own edges. */
function atDepot(state: State | undefined): State | undefined {
  if (!state || state.kind === 'closed') return undefined;
  if (state.kind === 'empty') return { kind: 'open', front: 'even', back: 'untouched', joined: false };
  return state.front === 'untouched' ? { ...state, front: 'even' } : state;
}

const isFinal = (state: State) => state.kind === 'closed' || (state.kind === 'open' && state.front !== 'odd' && state.back !== 'odd' && (state.joined || state.front === 'untouched' || state.back === 'untouched'));

/** The model in CPLEX LP format; its optimum is the shortest walk that covers every demand. */
export function scatteredMip(problem: ScatteredProblem): string {
  const { layout, places, stock, demand } = problem;
  if ((layout.crossAisles ?? []).length > 0) throw new Error('one block only');
  const length = backY(layout);
  const aisleGap = aisleX(layout, 2) - aisleX(layout, 1);
  const byAisle = new Map<number, number[]>();
  places.forEach((place, index) => byAisle.set(place.aisle, [...(byAisle.get(place.aisle) ?? []), index]));
  for (const list of byAisle.values()) list.sort((a, b) => places[a]!.position - places[b]!.position);
  const first = Math.min(layout.depotAisle, ...byAisle.keys());
  const last = Math.max(layout.depotAisle, ...byAisle.keys());

  const objective: string[] = [];
  const rows: string[] = [];
  const binaries: string[] = [];
  const term = (coefficient: number, name: string) => `${coefficient >= 0 ? '+' : '-'} ${Math.abs(coefficient)} ${name}`;
  /** Arcs into and out of each state node, and the vertical arcs of each aisle by kind. */
  const into = new Map<string, string[]>();
  const outOf = new Map<string, string[]>();
  const verticalArcs = new Map<string, string[]>();
  let arcs = 0;
  const arc = (from: string, to: string, cost: number) => {
    const name = `x${arcs++}`;
    binaries.push(name);
    if (cost !== 0) objective.push(term(cost, name));
    outOf.set(from, [...(outOf.get(from) ?? []), name]);
    into.set(to, [...(into.get(to) ?? []), name]);
    return name;
  };

  let states = new Map<string, State>([['empty', { kind: 'empty' }]]);
  const source = `s${first}_empty`;
  for (let aisle = first; aisle <= last; aisle++) {
    const hasPlaces = byAisle.has(aisle);
    const afterAisle = new Map<string, State>();
    for (const [key, state] of states) {
      for (const vertical of VERTICALS) {
        if (!hasPlaces && vertical !== 'none' && vertical !== 'through' && vertical !== 'through twice') continue;
        const next = aisle === layout.depotAisle ? atDepot(afterVertical(state, vertical)) : afterVertical(state, vertical);
        if (!next) continue;
        const cost = vertical === 'through' ? length : vertical === 'through twice' ? 2 * length : 0;
        const name = arc(`s${aisle}_${key}`, `v${aisle}_${keyOf(next)}`, cost);
        verticalArcs.set(`${aisle}${vertical}`, [...(verticalArcs.get(`${aisle}${vertical}`) ?? []), name]);
        afterAisle.set(keyOf(next), next);
      }
    }
    states = new Map();
    for (const [key, state] of afterAisle) {
      if (aisle === last) {
        if (isFinal(state)) arc(`v${aisle}_${key}`, 'sink', 0);
        continue;
      }
      for (const frontUses of [0, 1, 2]) {
        for (const backUses of [0, 1, 2]) {
          const next = afterCross(state, frontUses, backUses);
          if (!next) continue;
          arc(`v${aisle}_${key}`, `s${aisle + 1}_${keyOf(next)}`, (frontUses + backUses) * aisleGap);
          states.set(keyOf(next), next);
        }
      }
    }
  }
  for (const node of new Set([...into.keys(), ...outOf.keys()])) {
    const balance = node === source ? 1 : node === 'sink' ? -1 : 0;
    rows.push(`${[...(outOf.get(node) ?? []).map((name) => `+ ${name}`), ...(into.get(node) ?? []).map((name) => `- ${name}`)].join(' ')} = ${balance}`);
  }

  const sum = (aisle: number, kinds: Vertical[]) => kinds.flatMap((kind) => (verticalArcs.get(`${aisle}${kind}`) ?? []).map((name) => `- ${name}`)).join(' ') || '+ 0 x0';
  const visited = places.map((_, index) => `z${index}`);
  for (const [aisle, list] of byAisle) {
    const through = sum(aisle, ['through', 'through twice']);
    list.forEach((place, step) => {
      const y = positionY(layout, places[place]!.position);
      const below = step === 0 ? 0 : positionY(layout, places[list[step - 1]!]!.position);
      const above = step === list.length - 1 ? length : positionY(layout, places[list[step + 1]!]!.position);
      const front = `f${place}`;
      const back = `b${place}`;
      binaries.push(front, back);
      objective.push(term(2 * (y - below), front), term(2 * (above - y), back));
      // The first rung of each ladder is the entry itself; each rung after needs the one before.
      rows.push(step === 0 ? `${front} ${sum(aisle, ['front', 'both'])} = 0` : `${front} - f${list[step - 1]} <= 0`);
      rows.push(step === list.length - 1 ? `${back} ${sum(aisle, ['back', 'both'])} = 0` : `${back} - b${list[step + 1]} <= 0`);
      rows.push(`${front} + ${back} <= 1`);
      rows.push(`${visited[place]} - ${front} - ${back} ${through} <= 0`);
    });
  }
  demand.forEach((wanted, item) => {
    const terms = stock.flatMap((units, place) => units.filter((entry) => entry.item === item).map((entry) => `+ ${Math.min(entry.units, wanted)} ${visited[place]}`));
    rows.push(`${terms.join(' ')} >= ${wanted}`);
  });

  return [
    'Minimize',
    ` obj: ${objective.join(' ') || '0 x0'}`,
    'Subject To',
    ...rows.map((row, index) => ` c${index}: ${row}`),
    'Bounds',
    ...visited.map((name) => ` 0 <= ${name} <= 1`),
    'Binary',
    ...binaries.map((name) => ` ${name}`),
    'End',
  ].join('\n');
}
