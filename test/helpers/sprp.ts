import { readdirSync, readFileSync } from 'node:fs';
import type { Layout, Place } from '../../src/floor/plan/layout';

/*
 * Heßler & Irnich's public single picker routing benchmark on the two-block warehouse
 * (test/fixtures/sprp: the instances, their published optima, and how they map onto a layout).
 */
const FIXTURES = new URL('../fixtures/sprp/', import.meta.url);

export interface SprpInstance {
  name: string;
  layout: Layout;
  picks: Place[];
  /** The published optimal tour length. */
  optimum: number;
}

/** The instance files kept, by name. */
export function sprpInstanceFiles(): string[] {
  return readdirSync(new URL('instances/', FIXTURES)).sort();
}

/** Every instance of the two-block results, in the results' order, on Pickport's layout. */
export function twoBlockInstances(): SprpInstance[] {
  return readFileSync(new URL('results_SPRP_two_block.csv', FIXTURES), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','))
    .map(([name, , , , , , objective]) => ({ ...readInstance(name!), optimum: Number(objective) }));
}

function readInstance(name: string): Omit<SprpInstance, 'optimum'> {
  const text = readFileSync(new URL(`instances/${name}`, FIXTURES), 'utf8');
  const field = (key: string) => {
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${key} :`));
    if (!line) throw new Error(`${name}: no ${key}`);
    return line.slice(key.length + 2).trim();
  };
  // The mapping holds for equal offsets at both ends and a depot on the cross aisle, as in every file kept.
  if (field('DISTANCE_TOP_TO_CELL') !== field('DISTANCE_BOTTOM_TO_CELL') || Number(field('DISTANCE_TOP_OR_BOTTOM_TO_DEPOT')) !== 0) {
    throw new Error(`${name}: offsets the mapping does not cover`);
  }
  const cells = Number(field('NUM_CELLS'));
  const fromTop = field('DEPOT_LOCATION') === 'top';
  const layout: Layout = {
    aisles: Number(field('NUM_AISLES')),
    positionsPerAisle: cells,
    aisleSpacing: Number(field('DISTANCE_AISLE_TO_AISLE')),
    positionSpacing: Number(field('DISTANCE_CELL_TO_CELL')),
    crossAisleOffset: Number(field('DISTANCE_TOP_TO_CELL')),
    depotAisle: Number(field('DEPOT_AISLE')) + 1,
    crossAisles: [{ afterPosition: cells / 2, width: 1 }],
  };
  // Cell 0 is at the top; positions count from the depot's cross aisle.
  const picks = [...text.matchAll(/^ID \d+ AISLE (\d+) CELL (\d+) QUANTITY/gm)].map(([, aisle, cell]) => ({
    aisle: Number(aisle) + 1,
    position: fromTop ? Number(cell) + 1 : cells - Number(cell),
  }));
  return { name, layout, picks };
}
