import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { ItemNeed, Location } from '../../src/floor/plan/items';
import type { Layout, Place } from '../../src/floor/plan/layout';

/*
 * Heßler & Irnich's public single picker routing benchmark, with and without scattered storage
 * (test/fixtures/sprp-ss: the instances, their published optima, and how they map onto a layout).
 */
const FIXTURE = new URL('../fixtures/sprp-ss/instances.jsonl.gz', import.meta.url);

interface StoredInstance {
  name: string;
  aisles: number;
  cells: number;
  depotAisle: number;
  depot: 'top' | 'bottom';
  aisleSpacing: number;
  cellSpacing: number;
  offset: number;
  /** [article, aisle, cell, quantity] */
  skus: [number, number, number, number][];
  /** [article, quantity] */
  order: [number, number][];
  optimum: number;
  twoBlockOptimum: number | null;
}

export interface SprpInstance {
  name: string;
  /** unit_F1 (one cell per article), unit_F2/F5/F10 (about 3, 13, 29 cells), varying_F2/F5/F10 (quantities per cell and line). */
  storage: string;
  layout: Layout;
  /** The articles wanted and the cells holding them; a location's code is `aisle-position`. */
  needs: ItemNeed<Location>[];
  /** The published optimal tour length. */
  optimum: number;
}

let stored: StoredInstance[] | undefined;

function storedInstances(): StoredInstance[] {
  stored ??= gunzipSync(readFileSync(FIXTURE))
    .toString('utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as StoredInstance);
  return stored;
}

/** Every instance on the one-block warehouse (1,320), or on the two-block one where an optimum is published (1,320). */
export function sprpInstances(blocks: 1 | 2): SprpInstance[] {
  return storedInstances().flatMap((instance) => {
    const optimum = blocks === 1 ? instance.optimum : instance.twoBlockOptimum;
    return optimum === null ? [] : [{ name: instance.name, storage: instance.name.split('_m')[0]!, layout: layoutOf(instance, blocks), needs: needsOf(instance), optimum }];
  });
}

/** The two-block instances with one cell per article, as plain pick lists (the dedicated-storage problem). */
export function twoBlockInstances(): { name: string; layout: Layout; picks: Place[]; optimum: number }[] {
  return sprpInstances(2)
    .filter(({ storage }) => storage === 'unit_F1')
    .map(({ name, layout, needs, optimum }) => ({ name, layout, picks: needs.flatMap((need) => need.slots.map((slot) => slot.place)), optimum }));
}

function layoutOf(instance: StoredInstance, blocks: 1 | 2): Layout {
  return {
    aisles: instance.aisles,
    positionsPerAisle: instance.cells,
    aisleSpacing: instance.aisleSpacing,
    positionSpacing: instance.cellSpacing,
    crossAisleOffset: instance.offset,
    depotAisle: instance.depotAisle + 1,
    crossAisles: blocks === 2 ? [{ afterPosition: instance.cells / 2, width: 1 }] : [],
  };
}

/** Cell 0 is at the top; positions count from the depot's cross aisle. A cell listed twice for an article holds the sum. */
function needsOf(instance: StoredInstance): ItemNeed<Location>[] {
  return instance.order.map(([article, quantity]) => {
    const slots = new Map<string, { place: Location; quantity: number }>();
    for (const [id, aisle, cell, units] of instance.skus) {
      if (id !== article) continue;
      const position = instance.depot === 'top' ? cell + 1 : instance.cells - cell;
      const code = `${aisle + 1}-${position}`;
      const known = slots.get(code);
      if (known) known.quantity += units;
      else slots.set(code, { place: { code, aisle: aisle + 1, position }, quantity: units });
    }
    return { item: `article-${article}`, quantity, slots: [...slots.values()] };
  });
}
