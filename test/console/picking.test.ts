/// <reference lib="dom" />
// The modules under test run in the browser: they read localStorage, which the test provides.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PickBody, PickerWave, WaveLine } from '../../web/console/src/api';
import { allRecorded, nextVisit, pickAt, visitsOf, withPicks } from '../../web/console/src/picking';
import { PickQueue } from '../../web/console/src/queue';

/** localStorage as a browser has it, in memory: what the queue reads and writes. */
class MemoryStorage implements Storage {
  readonly #items = new Map<string, string>();
  get length() {
    return this.#items.size;
  }
  clear() {
    this.#items.clear();
  }
  getItem(key: string) {
    return this.#items.get(key) ?? null;
  }
  key(index: number) {
    return [...this.#items.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.#items.delete(key);
  }
  setItem(key: string, value: string) {
    this.#items.set(key, String(value));
  }
}

const line = (orderExternalId: string, productExternalId: string, quantity: number, tote: number): WaveLine => ({
  orderExternalId,
  tote,
  productExternalId,
  productSku: `SKU-${productExternalId}`,
  barcode: null,
  packagings: [],
  name: `Product ${productExternalId}`,
  quantity,
  orderedQuantity: quantity,
  lot: null,
  expiresOn: null,
  next: null,
  pickedQuantity: null,
  reason: null,
});

/** Two stops (P1 for two orders at A-1, P2 at B-5) and one unplaced line (P3). */
const wave = (): PickerWave => ({
  id: '6e5d4c3b-2a19-4f08-8e7d-6c5b4a392817',
  number: 12,
  status: 'PICKING',
  policy: 'optimal',
  distance: 40,
  sShapeDistance: 44,
  orders: [
    { externalId: 'O1', orderNumber: 'N-O1', tote: 1 },
    { externalId: 'O2', orderNumber: 'N-O2', tote: 2 },
  ],
  stops: [
    { seq: 1, locationCode: 'A-1', aisle: 1, position: 1, lines: [line('O1', 'P1', 2, 1), line('O2', 'P1', 1, 2)] },
    { seq: 2, locationCode: 'B-5', aisle: 2, position: 5, lines: [line('O1', 'P2', 1, 1)] },
  ],
  unplaced: [line('O2', 'P3', 3, 2)],
  picker: { id: '8c7b6a59-4837-4261-9f50-1e2d3c4b5a69', username: 'mara', name: 'Mara' },
  createdAt: '2026-11-23T09:30:00.000Z',
  toteLabels: [],
  progress: { stopsDone: 0, stopsTotal: 2, distanceLeft: 40 },
});

const pick = (orderExternalId: string, productExternalId: string, quantity: number, reason?: PickBody['reason']): PickBody => ({
  orderExternalId,
  productExternalId,
  quantity,
  ...(reason ? { reason } : {}),
});

const picked = (w: PickerWave) => [...w.stops.flatMap((stop) => stop.lines), ...w.unplaced].map((l) => [l.orderExternalId, l.productExternalId, l.pickedQuantity, l.reason]);

describe('withPicks: the wave as it will be once the queued picks reach the service', () => {
  it('shows the wave unchanged while nothing is queued', () => {
    const server = wave();
    expect(withPicks(server, [])).toEqual(wave());
    expect(nextVisit(withPicks(server, []))?.locationCode).toBe('A-1');
  });

  it('records each pick on its own line only (same product, other order, untouched), and counts the stops done', () => {
    const shown = withPicks(wave(), [pick('O1', 'P1', 2)]);
    expect(picked(shown)).toEqual([
      ['O1', 'P1', 2, null],
      ['O2', 'P1', null, null],
      ['O1', 'P2', null, null],
      ['O2', 'P3', null, null],
    ]);
    // A-1 still has O2's line to pick: no stop done yet, and the screen stays there.
    expect(shown.progress).toEqual({ stopsDone: 0, stopsTotal: 2, distanceLeft: 40 });
    expect(nextVisit(shown)?.locationCode).toBe('A-1');

    const stopDone = withPicks(wave(), [pick('O1', 'P1', 2), pick('O2', 'P1', 1)]);
    expect(stopDone.progress).toEqual({ stopsDone: 1, stopsTotal: 2, distanceLeft: 40 });
    expect(nextVisit(stopDone)?.locationCode).toBe('B-5');
  });

  it('keeps the last word on a line, with its short-pick reason', () => {
    const shown = withPicks(wave(), [pick('O1', 'P1', 2), pick('O1', 'P1', 1, 'damaged')]);
    expect(picked(shown)[0]).toEqual(['O1', 'P1', 1, 'damaged']);
    // A full pick after a short one clears the reason.
    expect(picked(withPicks(wave(), [pick('O1', 'P1', 1, 'damaged'), pick('O1', 'P1', 2)]))[0]).toEqual(['O1', 'P1', 2, null]);
  });

  it('applies picks to the unplaced lines too, which count for no stop', () => {
    const all = withPicks(wave(), [pick('O1', 'P1', 2), pick('O2', 'P1', 1), pick('O1', 'P2', 0, 'not_found')]);
    expect(all.progress.stopsDone).toBe(2);
    expect(nextVisit(all)).toEqual({ locationCode: null, lines: all.unplaced });
    expect(allRecorded(all)).toBe(false);
    const done = withPicks(all, [pick('O2', 'P3', 3)]);
    expect(done.unplaced[0]?.pickedQuantity).toBe(3);
    expect(done.progress.stopsDone).toBe(2);
    expect(allRecorded(done)).toBe(true);
    expect(nextVisit(done)).toBeNull();
  });

  it('leaves the wave it was given as it was (the service answer stays the base)', () => {
    const server = wave();
    withPicks(server, [pick('O1', 'P1', 2), pick('O2', 'P3', 3)]);
    expect(server).toEqual(wave());
  });

  it('ignores a pick for a line the wave does not have', () => {
    expect(withPicks(wave(), [pick('O9', 'P1', 1)])).toEqual(wave());
  });

  it('records a line planned at two stops part by part: a pick names its stop and is shown there only', () => {
    const split = wave();
    split.stops[0]!.lines[0] = { ...line('O1', 'P1', 1, 1), orderedQuantity: 2, next: { locationCode: 'B-5', quantity: 1 } };
    split.stops[1]!.lines.push({ ...line('O1', 'P1', 1, 1), orderedQuantity: 2 });
    const [atA1, atB5] = visitsOf(split);
    const first = pickAt(atA1!, split.stops[0]!.lines[0]!, 1);
    expect(first).toEqual({ orderExternalId: 'O1', productExternalId: 'P1', quantity: 1, locationCode: 'A-1' });
    const shown = withPicks(split, [first]);
    expect(shown.stops.map((stop) => stop.lines.map((l) => [l.productExternalId, l.pickedQuantity]))).toEqual([
      [['P1', 1], ['P1', null]],
      [['P2', null], ['P1', null]],
    ]);
    const both = withPicks(split, [first, pickAt(atB5!, split.stops[1]!.lines[1]!, 0, { reason: 'not_found' })]);
    expect(both.stops[1]!.lines[1]).toMatchObject({ pickedQuantity: 0, reason: 'not_found' });
    // An unplaced line's pick names no location.
    expect(pickAt(visitsOf(split)[2]!, split.unplaced[0]!, 3)).toEqual({ orderExternalId: 'O2', productExternalId: 'P3', quantity: 3 });
  });

  it("names the part's lot, and the lot scanned instead only when it is another; a line without a lot ignores it", () => {
    const lots = wave();
    lots.stops[0]!.lines = [
      { ...line('O1', 'P1', 1, 1), lot: 'L1', expiresOn: '2027-03-11' },
      { ...line('O1', 'P1', 1, 1), lot: 'L2', expiresOn: '2027-03-12' },
    ];
    const [atA1, atB5] = visitsOf(lots);
    const taken = pickAt(atA1!, lots.stops[0]!.lines[1]!, 1, { pickedLot: 'L0' });
    expect(taken).toEqual({ orderExternalId: 'O1', productExternalId: 'P1', quantity: 1, locationCode: 'A-1', lot: 'L2', pickedLot: 'L0' });
    expect(pickAt(atA1!, lots.stops[0]!.lines[0]!, 1, { pickedLot: 'L1' })).not.toHaveProperty('pickedLot');
    expect(pickAt(atB5!, lots.stops[1]!.lines[0]!, 1, { pickedLot: 'L1' })).toEqual({ orderExternalId: 'O1', productExternalId: 'P2', quantity: 1, locationCode: 'B-5' });
    // Shown on the part of its lot only.
    expect(withPicks(lots, [taken]).stops[0]!.lines.map((l) => [l.lot, l.pickedQuantity])).toEqual([
      ['L1', null],
      ['L2', 1],
    ]);
  });
});

describe('PickQueue: picks kept on the device until the service has them', () => {
  let storage: MemoryStorage;
  beforeEach(() => {
    storage = new MemoryStorage();
    (globalThis as { localStorage?: Storage }).localStorage = storage;
  });
  afterEach(() => {
    delete (globalThis as { localStorage?: Storage }).localStorage;
  });

  it('keeps picks oldest first, across a reload (a new queue over the same storage)', () => {
    const queue = new PickQueue('wave-1');
    expect(queue.all()).toEqual([]);
    queue.push(pick('O1', 'P1', 2));
    queue.push(pick('O1', 'P1', 1, 'damaged'));
    expect(new PickQueue('wave-1').all()).toEqual([pick('O1', 'P1', 2), pick('O1', 'P1', 1, 'damaged')]);
  });

  it('drops the oldest pick once sent, and leaves nothing behind when empty', () => {
    const queue = new PickQueue('wave-1');
    queue.push(pick('O1', 'P1', 2));
    queue.push(pick('O2', 'P1', 1));
    queue.shift();
    expect(queue.all()).toEqual([pick('O2', 'P1', 1)]);
    queue.shift();
    expect(queue.all()).toEqual([]);
    expect(storage.length).toBe(0);
    queue.shift();
    expect(queue.all()).toEqual([]);
  });

  it("keeps each wave's picks apart", () => {
    new PickQueue('wave-1').push(pick('O1', 'P1', 2));
    new PickQueue('wave-2').push(pick('O5', 'P7', 1));
    expect(new PickQueue('wave-1').all()).toEqual([pick('O1', 'P1', 2)]);
    expect(new PickQueue('wave-2').all()).toEqual([pick('O5', 'P7', 1)]);
  });

  it('reads a damaged or foreign stored value as an empty queue, and starts over from it', () => {
    const queue = new PickQueue('wave-1');
    queue.push(pick('O1', 'P1', 2));
    const key = storage.key(0)!;
    storage.setItem(key, '{not json');
    expect(queue.all()).toEqual([]);
    storage.setItem(key, '{"a":1}');
    expect(queue.all()).toEqual([]);
    queue.push(pick('O2', 'P1', 1));
    expect(queue.all()).toEqual([pick('O2', 'P1', 1)]);
  });
});
