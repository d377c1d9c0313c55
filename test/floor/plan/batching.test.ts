import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseWave, type WaveCandidate, type WaveLimits } from '../../../src/floor/plan/batching';
import type { Layout } from '../../../src/floor/plan/layout';
import { layoutArbitrary, placeArbitrary } from './arbitraries';

const classic: Layout = { aisles: 10, positionsPerAisle: 30, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 1 };

const layouts = layoutArbitrary({ aisles: 10, positions: { min: 1, max: 20 } });

/** A layout, candidates most urgent first (ids c0, c1, ...) with up to 5 places each, and limits. */
const waveInput = layouts.chain((layout) => {
  const place = placeArbitrary(layout);
  const candidate = fc.record({ units: fc.integer({ min: 0, max: 15 }), places: fc.array(place, { maxLength: 5 }) });
  return fc.record({
    layout: fc.constant(layout),
    candidates: fc
      .array(candidate, { minLength: 1, maxLength: 30 })
      .map((list): WaveCandidate[] => list.map((entry, i) => ({ id: `c${i}`, ...entry }))),
    limits: fc.record({ maxOrders: fc.integer({ min: 1, max: 8 }), maxItems: fc.integer({ min: 1, max: 40 }) }),
  });
});

function unitsOf(candidates: readonly WaveCandidate[], ids: readonly string[]): number {
  return ids.reduce((sum, id) => sum + candidates.find((candidate) => candidate.id === id)!.units, 0);
}

describe('chooseWave (property)', () => {
  it('takes the most urgent candidate first, each chosen once, within both limits unless the seed alone exceeds maxItems', () => {
    fc.assert(
      fc.property(waveInput, ({ layout, candidates, limits }) => {
        const wave = chooseWave(layout, candidates, limits);
        expect(wave[0]).toBe(candidates[0]!.id);
        expect(new Set(wave).size).toBe(wave.length);
        for (const id of wave) expect(candidates.map((candidate) => candidate.id)).toContain(id);
        expect(wave.length).toBeLessThanOrEqual(limits.maxOrders);
        if (candidates[0]!.units > limits.maxItems) expect(wave).toEqual([candidates[0]!.id]);
        else expect(unitsOf(candidates, wave)).toBeLessThanOrEqual(limits.maxItems);
      }),
      { numRuns: 1000 },
    );
  });

  it('fills the cart: short of maxOrders only when no candidate left out would fit in maxItems', () => {
    fc.assert(
      fc.property(waveInput, ({ layout, candidates, limits }) => {
        const wave = chooseWave(layout, candidates, limits);
        if (wave.length === limits.maxOrders) return;
        const room = limits.maxItems - unitsOf(candidates, wave);
        const leftOut = candidates.filter((candidate) => !wave.includes(candidate.id));
        expect(leftOut.filter((candidate) => candidate.units <= room)).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it('is deterministic: the same candidates give the same wave', () => {
    fc.assert(
      fc.property(waveInput, ({ layout, candidates, limits }) => {
        const again = structuredClone(candidates);
        expect(chooseWave(layout, candidates, limits)).toEqual(chooseWave(layout, again, limits));
      }),
      { numRuns: 300 },
    );
  });
});

describe('chooseWave', () => {
  const limits: WaveLimits = { maxOrders: 8, maxItems: 40 };
  const order = (id: string, units: number, ...places: [number, number][]): WaveCandidate => ({
    id,
    units,
    places: places.map(([aisle, position]) => ({ aisle, position })),
  });

  it('is empty only without candidates', () => {
    expect(chooseWave(classic, [], limits)).toEqual([]);
  });

  it('after the seed, prefers the order next to it over a more urgent one across the floor', () => {
    const candidates = [order('seed', 1, [2, 5]), order('far', 1, [10, 28]), order('near', 1, [2, 7])];
    expect(chooseWave(classic, candidates, { maxOrders: 2, maxItems: 40 })).toEqual(['seed', 'near']);
    expect(chooseWave(classic, candidates, limits)).toEqual(['seed', 'near', 'far']);
  });

  it('of two orders adding the same walking, takes the more urgent one', () => {
    const candidates = [order('seed', 1, [3, 5]), order('first', 1, [3, 9]), order('second', 1, [3, 9])];
    expect(chooseWave(classic, candidates, { maxOrders: 2, maxItems: 40 })).toEqual(['seed', 'first']);
  });

  it('takes an order without placed lines at once: it adds no walking', () => {
    const candidates = [order('seed', 1, [3, 5]), order('placed', 1, [3, 6]), order('unplaced', 1)];
    expect(chooseWave(classic, candidates, { maxOrders: 2, maxItems: 40 })).toEqual(['seed', 'unplaced']);
  });

  it('passes over an order too big for the room left for one that fits', () => {
    const candidates = [order('seed', 30, [4, 10]), order('big-near', 20, [4, 11]), order('small-far', 5, [9, 25])];
    expect(chooseWave(classic, candidates, limits)).toEqual(['seed', 'small-far']);
  });

  it('takes a seed with more units than maxItems alone rather than never picking it', () => {
    const candidates = [order('huge', 60, [4, 10]), order('small', 1, [4, 11])];
    expect(chooseWave(classic, candidates, limits)).toEqual(['huge']);
  });

  it('among many candidates, the wave gathers the ones in the seed’s corner of the floor', () => {
    // The seed's route runs up aisle 9 and down aisle 10. 40 more urgent orders half way up aisles 2 to 8 would each
    // add a detour; 7 at the back of aisles 9 and 10 lie on the way.
    const spread = Array.from({ length: 40 }, (_, i) => order(`spread-${i}`, 1, [2 + (i % 7), 10 + ((i * 3) % 7)]));
    const corner = Array.from({ length: 7 }, (_, i) => order(`corner-${i}`, 1, [9 + (i % 2), 26 + (i % 4)]));
    const wave = chooseWave(classic, [order('seed', 1, [9, 29], [10, 29]), ...spread, ...corner], limits);
    expect(wave[0]).toBe('seed');
    expect(wave.slice(1).sort()).toEqual(corner.map((candidate) => candidate.id));
  });
});
