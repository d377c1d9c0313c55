import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Layout, Place } from '../../../src/floor/plan/layout';
import { routePicks } from '../../../src/floor/plan/walks';

/*
 * Heßler & Irnich's public single picker routing benchmark on the two-block warehouse: 240
 * instances with their published optima (test/fixtures/sprp/README.md says how they map onto a layout).
 */
const FIXTURES = new URL('../../fixtures/sprp/', import.meta.url);

interface Instance {
  name: string;
  layout: Layout;
  picks: Place[];
}

function readInstance(name: string): Instance {
  const text = readFileSync(new URL(`instances/${name}`, FIXTURES), 'utf8');
  const field = (key: string) => /^(\S+) : (.*)$/m.exec(text.split('\n').find((line) => line.startsWith(`${key} :`)) ?? '')?.[2]?.trim() ?? '';
  const cells = Number(field('NUM_CELLS'));
  const fromTop = field('DEPOT_LOCATION') === 'top';
  expect(field('DISTANCE_TOP_TO_CELL')).toBe(field('DISTANCE_BOTTOM_TO_CELL'));
  expect(Number(field('DISTANCE_TOP_OR_BOTTOM_TO_DEPOT'))).toBe(0);
  const layout: Layout = {
    aisles: Number(field('NUM_AISLES')),
    positionsPerAisle: cells,
    aisleSpacing: Number(field('DISTANCE_AISLE_TO_AISLE')),
    positionSpacing: Number(field('DISTANCE_CELL_TO_CELL')),
    crossAisleOffset: Number(field('DISTANCE_TOP_TO_CELL')),
    depotAisle: Number(field('DEPOT_AISLE')) + 1,
    crossAisles: [{ afterPosition: cells / 2, width: 1 }],
  };
  const picks = [...text.matchAll(/^ID \d+ AISLE (\d+) CELL (\d+) QUANTITY/gm)].map(([, aisle, cell]) => ({
    aisle: Number(aisle) + 1,
    position: fromTop ? Number(cell) + 1 : cells - Number(cell),
  }));
  return { name, layout, picks };
}

const optima = readFileSync(new URL('results_SPRP_two_block.csv', FIXTURES), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => line.split(','))
  .map(([name, , , , , , objective]) => ({ name: name!, objective: Number(objective) }));

describe('the two-block benchmark of Heßler & Irnich', () => {
  it('holds the 240 instances its results name, and nothing else', () => {
    expect(optima).toHaveLength(240);
    expect(readdirSync(new URL('instances/', FIXTURES)).sort()).toEqual(optima.map(({ name }) => name).sort());
  });

  it('optimal reproduces every published optimum, proven exact', () => {
    const missed: string[] = [];
    for (const { name, objective } of optima) {
      const { layout, picks } = readInstance(name);
      const route = routePicks(layout, picks, 'optimal');
      if (!route.exact || Math.abs(route.distance - objective) > 1e-6 * objective) missed.push(`${name}: ${route.distance} (exact ${route.exact}), published ${objective}`);
    }
    expect(missed).toEqual([]);
  });
});
