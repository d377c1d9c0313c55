import highsLoader from 'highs';
import { describe, expect, it } from 'vitest';
import { scatteredProblem } from '../../src/floor/plan/items';
import { sprpInstances } from '../helpers/sprp';
import { scatteredMip } from '../../bench/sprp-mip';

describe('the scattered-storage MIP the bench solves with HiGHS', () => {
  it("has the published optimum of Heßler & Irnich's small one-block instances as its optimum", async () => {
    const highs = await highsLoader();
    // Seed 0 of the scattered-storage classes of 5 and 10 aisles of 30 cells, 3 and 7 articles: unit and varying demand, about 3 and 13 cells an article.
    const instances = sprpInstances(1).filter(({ name, storage }) => storage !== 'unit_F1' && /_m(5|10)_C30_a(3|7)_0\.txt$/.test(name));
    expect(instances).toHaveLength(12);
    const solved = instances.map(({ name, layout, needs }) => {
      const solution = highs.solve(scatteredMip(scatteredProblem(layout, needs)), { output_flag: false });
      return { name, optimum: solution.Status === 'Optimal' ? Math.round(solution.ObjectiveValue) : solution.Status };
    });
    expect(solved).toEqual(instances.map(({ name, optimum }) => ({ name, optimum })));
  });
});
