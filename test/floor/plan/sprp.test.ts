import { describe, expect, it } from 'vitest';
import { routePicks } from '../../../src/floor/plan/walks';
import { sprpInstanceFiles, twoBlockInstances } from '../../helpers/sprp';

describe('the two-block benchmark of Heßler & Irnich', () => {
  const instances = twoBlockInstances();

  it('holds the 240 instances its results name, and nothing else', () => {
    expect(instances).toHaveLength(240);
    expect(sprpInstanceFiles()).toEqual(instances.map(({ name }) => name).sort());
  });

  it('optimal reproduces every published optimum, proven exact', () => {
    const missed: string[] = [];
    for (const { name, layout, picks, optimum } of instances) {
      const route = routePicks(layout, picks, 'optimal');
      if (!route.exact || Math.abs(route.distance - optimum) > 1e-6 * optimum) missed.push(`${name}: ${route.distance} (exact ${route.exact}), published ${optimum}`);
    }
    expect(missed).toEqual([]);
  });
});
