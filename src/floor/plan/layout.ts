/**
 * A warehouse of parallel aisles between a front and a back cross aisle, the depot on the front
 * cross aisle, and middle cross aisles running across every aisle: k of them make k+1 blocks.
 * Position p of aisle a stands at x = (a-1)*aisleSpacing, y = crossAisleOffset +
 * (p-1)*positionSpacing + the widths of the middle cross aisles before p. The front cross aisle is
 * y = 0, a middle one lies halfway between the two positions it separates, and the back one
 * crossAisleOffset behind the last position. A picker walks only along aisle centre lines and
 * cross aisles and picks both sides of an aisle from its centre line.
 */
export interface Layout {
  aisles: number;
  positionsPerAisle: number;
  aisleSpacing: number;
  positionSpacing: number;
  crossAisleOffset: number;
  depotAisle: number;
  /** Middle cross aisles; none when left out. */
  crossAisles?: readonly CrossAisle[];
}

/** A middle cross aisle between positions `afterPosition` and `afterPosition + 1`, `width` wide. */
export interface CrossAisle {
  afterPosition: number;
  width: number;
}

/** Aisle 1..aisles from the left, position 1..positionsPerAisle from the front. */
export interface Place {
  aisle: number;
  position: number;
}

export const POLICIES = ['s-shape', 'return', 'midpoint', 'largest-gap', 'combined', 'optimal'] as const;
export type Policy = (typeof POLICIES)[number];

/** Large enough for any real floor, small enough that a route stays cheap to compute. */
export const MAX_AISLES = 1_000;
export const MAX_POSITIONS_PER_AISLE = 10_000;
export const MAX_CROSS_AISLES = 20;

/** Why a layout is unusable (field name and message), or undefined; e.g. depotAisle outside 1..aisles. */
export function layoutProblem(layout: Layout): { field: string; message: string } | undefined {
  return layoutProblems(layout)[0];
}

/**
 * Every reason a layout is unusable, [] when it is usable. A bound taken from another field
 * (depotAisle up to aisles, afterPosition below positionsPerAisle) is checked only when that field
 * is usable itself.
 */
export function layoutProblems(layout: Layout): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  const counts: ['aisles' | 'positionsPerAisle', number][] = [
    ['aisles', MAX_AISLES],
    ['positionsPerAisle', MAX_POSITIONS_PER_AISLE],
  ];
  for (const [field, max] of counts) {
    const value = layout[field];
    if (!Number.isInteger(value) || value < 1 || value > max) problems.push({ field, message: `${field} must be a whole number from 1 to ${max}` });
  }
  const usable = (field: string) => !problems.some((problem) => problem.field === field);
  const [aislesUsable, positionsUsable] = [usable('aisles'), usable('positionsPerAisle')];
  for (const field of ['aisleSpacing', 'positionSpacing'] as const) {
    const value = layout[field];
    if (!Number.isFinite(value) || value <= 0) problems.push({ field, message: `${field} must be a number above 0` });
  }
  if (!Number.isFinite(layout.crossAisleOffset) || layout.crossAisleOffset < 0) {
    problems.push({ field: 'crossAisleOffset', message: 'crossAisleOffset must be a number of 0 or more' });
  }
  if (!Number.isInteger(layout.depotAisle) || layout.depotAisle < 1 || (aislesUsable && layout.depotAisle > layout.aisles)) {
    problems.push({ field: 'depotAisle', message: `depotAisle must be an aisle of the layout, 1 to ${aislesUsable ? layout.aisles : 'aisles'}` });
  }
  return [...problems, ...crossAisleProblems(layout, positionsUsable)];
}

function crossAisleProblems(layout: Layout, positionsUsable: boolean): { field: string; message: string }[] {
  const crossAisles = layout.crossAisles ?? [];
  if (crossAisles.length > MAX_CROSS_AISLES) return [{ field: 'crossAisles', message: `crossAisles must hold at most ${MAX_CROSS_AISLES} cross aisles` }];
  const problems: { field: string; message: string }[] = [];
  const seen = new Set<number>();
  const last = positionsUsable ? layout.positionsPerAisle - 1 : Infinity;
  for (const [index, { afterPosition, width }] of crossAisles.entries()) {
    const field = `crossAisles[${index}]`;
    if (!Number.isInteger(afterPosition) || afterPosition < 1 || afterPosition > last) {
      const range = positionsUsable ? `from 1 to ${last}` : 'from 1 to positionsPerAisle - 1';
      problems.push({ field: `${field}.afterPosition`, message: `afterPosition must be a whole number ${range}` });
    } else if (seen.has(afterPosition)) {
      problems.push({ field: `${field}.afterPosition`, message: `afterPosition ${afterPosition} has a cross aisle already` });
    }
    seen.add(afterPosition);
    if (!Number.isFinite(width) || width <= 0) problems.push({ field: `${field}.width`, message: 'width must be a number above 0' });
  }
  return problems;
}

/** Whether `place` is a position of `layout`. */
export function isOnLayout(layout: Layout, place: Place): boolean {
  return (
    Number.isInteger(place.aisle) &&
    Number.isInteger(place.position) &&
    place.aisle >= 1 &&
    place.aisle <= layout.aisles &&
    place.position >= 1 &&
    place.position <= layout.positionsPerAisle
  );
}

/** x of an aisle's centre line. */
export function aisleX(layout: Layout, aisle: number): number {
  return (aisle - 1) * layout.aisleSpacing;
}

/** y of a position along its aisle, measured from the front cross aisle. */
export function positionY(layout: Layout, position: number): number {
  let y = layout.crossAisleOffset + (position - 1) * layout.positionSpacing;
  for (const crossAisle of layout.crossAisles ?? []) if (crossAisle.afterPosition < position) y += crossAisle.width;
  return y;
}

/** y of the centre line of each middle cross aisle, front to back. */
export function middleCrossAisleYs(layout: Layout): number[] {
  return [...(layout.crossAisles ?? [])]
    .sort((a, b) => a.afterPosition - b.afterPosition)
    .map(({ afterPosition }) => (positionY(layout, afterPosition) + positionY(layout, afterPosition + 1)) / 2);
}

/** y of the back cross aisle. */
export function backY(layout: Layout): number {
  return positionY(layout, layout.positionsPerAisle) + layout.crossAisleOffset;
}
