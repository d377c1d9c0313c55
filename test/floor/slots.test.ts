import { describe, expect, it } from 'vitest';
import { UNLIMITED } from '../helpers/context';
import { warehouse } from '../orders/helpers';
import { useFloor } from './helpers';

const LOCATIONS = [
  { code: 'A-01', aisle: 1, position: 1 },
  { code: 'B-03', aisle: 2, position: 3 },
  { code: 'C-05', aisle: 3, position: 5 },
];
const PRODUCTS = [
  { externalId: 'SHOE', locationCode: 'A-01', stock: 10, lotTracked: true },
  { externalId: 'SOCK', locationCode: 'B-03', stock: 5 },
  { externalId: 'HAT', stock: 3 },
];

type Listed = { productExternalId: string; locationCode: string; quantity: number };
/** A slot sent without a role, bounds or lot, as stored: a pick face without bounds nor lot. */
const face = <S extends object>(slot: S) => ({ role: 'pick', min: null, max: null, lot: null, expiresOn: null, ...slot });
const byProductAndCode = (a: Listed, b: Listed) => a.productExternalId.localeCompare(b.productExternalId) || a.locationCode.localeCompare(b.locationCode);

describe('floor: slots, happy paths', () => {
  const setup = useFloor({ locations: LOCATIONS, codes: ['DOCK-1'], products: PRODUCTS });

  /** Every slot of the tenant, through every page of GET /slots. */
  async function allSlots(query = '', limit = 2): Promise<Listed[]> {
    const slots: Listed[] = [];
    let cursor: string | null = null;
    do {
      const response: Awaited<ReturnType<typeof setup.floor.get<'/slots'>>> = await setup.floor.get(`/slots?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      slots.push(...response.body.data);
      cursor = response.body.pagination.nextCursor;
    } while (cursor);
    return slots;
  }

  it('replaces the whole set and lists it page by page, each slot once', async () => {
    const sent = [
      { productExternalId: 'SHOE', locationCode: 'A-01', quantity: 4 },
      { productExternalId: 'SHOE', locationCode: 'C-05', quantity: 6 },
      { productExternalId: 'SOCK', locationCode: 'B-03', quantity: 0 },
      { productExternalId: 'HAT', locationCode: 'C-05', quantity: 3 },
      { productExternalId: 'SOCK', locationCode: 'C-05', quantity: 5 },
    ];
    const response = await setup.floor.put('/slots', { slots: sent });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toEqual({ slots: 5, products: 3 });
    const listed = await allSlots();
    expect(listed).toHaveLength(5);
    expect([...listed].sort(byProductAndCode)).toEqual(sent.map(face).sort(byProductAndCode));
    const first = await setup.floor.get('/slots?limit=2');
    expect(first.body.pagination).toMatchObject({ limit: 2, hasMore: true, total: 5 });

    // A second replacement leaves only what it sent.
    expect((await setup.floor.put('/slots', { slots: [{ productExternalId: 'HAT', locationCode: 'A-01', quantity: 1 }] })).body.data).toEqual({ slots: 1, products: 1 });
    expect(await allSlots()).toEqual([face({ productExternalId: 'HAT', locationCode: 'A-01', quantity: 1 })]);
    expect((await setup.floor.put('/slots', { slots: [] })).body.data).toEqual({ slots: 0, products: 0 });
    expect(await allSlots()).toEqual([]);
  });

  it("replaces one product's slots, leaving the others', and filters the list by product", async () => {
    await setup.floor.put('/slots', { slots: [{ productExternalId: 'SOCK', locationCode: 'B-03', quantity: 5 }] });
    const response = await setup.floor.put('/products/SHOE/slots', {
      slots: [
        { locationCode: 'C-05', quantity: 7 },
        { locationCode: 'A-01', quantity: 3 },
      ],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toEqual([
      face({ productExternalId: 'SHOE', locationCode: 'A-01', quantity: 3 }),
      face({ productExternalId: 'SHOE', locationCode: 'C-05', quantity: 7 }),
    ]);
    expect(await allSlots('&productExternalId=SHOE')).toEqual(response.body.data);
    expect(await allSlots('&productExternalId=SOCK')).toEqual([face({ productExternalId: 'SOCK', locationCode: 'B-03', quantity: 5 })]);
    expect((await setup.floor.put('/products/SHOE/slots', { slots: [] })).body.data).toEqual([]);
    expect(await allSlots()).toEqual([face({ productExternalId: 'SOCK', locationCode: 'B-03', quantity: 5 })]);
  });

  it('keeps several lots of one product at one location, each its own slot with its expiry, listed page by page', async () => {
    const sent = [
      { productExternalId: 'SHOE', locationCode: 'A-01', quantity: 2, lot: 'L2', expiresOn: '2027-03-01' },
      { productExternalId: 'SHOE', locationCode: 'A-01', quantity: 3, lot: 'L1', expiresOn: '2027-01-31' },
      { productExternalId: 'SHOE', locationCode: 'A-01', quantity: 1 },
      { productExternalId: 'SHOE', locationCode: 'C-05', quantity: 4, lot: 'L1' },
    ];
    expect((await setup.floor.put('/slots', { slots: sent })).body.data).toEqual({ slots: 4, products: 1 });
    const expected = [2, 1, 0, 3].map((index) => face(sent[index]!));
    expect(await allSlots('', 1)).toEqual(expected);
    const product = await setup.floor.put('/products/SHOE/slots', { slots: sent.map(({ productExternalId: _, ...slot }) => slot) });
    expect(product.status, JSON.stringify(product.body)).toBe(200);
    expect(product.body.data).toEqual(expected);
    expect((await setup.floor.put('/slots', { slots: [] })).status).toBe(200);
  });

  it('lists the products whose slots hold other than their stock, page by page', async () => {
    await setup.floor.put('/slots', {
      slots: [
        { productExternalId: 'SHOE', locationCode: 'A-01', quantity: 4 },
        { productExternalId: 'SHOE', locationCode: 'C-05', quantity: 6 },
        { productExternalId: 'SOCK', locationCode: 'B-03', quantity: 2 },
        { productExternalId: 'HAT', locationCode: 'C-05', quantity: 9 },
      ],
    });
    const first = await setup.floor.get('/slots/mismatches?limit=1');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.pagination).toMatchObject({ limit: 1, hasMore: true, total: 2 });
    const second = await setup.floor.get(`/slots/mismatches?limit=1&cursor=${first.body.pagination.nextCursor}`);
    expect(second.body.pagination).toMatchObject({ hasMore: false, nextCursor: null, total: 2 });
    const mismatches = [...first.body.data, ...second.body.data].sort((a, b) => a.productExternalId.localeCompare(b.productExternalId));
    expect(mismatches).toEqual([
      { productExternalId: 'HAT', sku: 'SKU-HAT', stock: 3, inSlots: 9 },
      { productExternalId: 'SOCK', sku: 'SKU-SOCK', stock: 5, inSlots: 2 },
    ]);
    // Products without slots never disagree.
    await setup.floor.put('/slots', { slots: [] });
    expect((await setup.floor.get('/slots/mismatches')).body).toMatchObject({ data: [], pagination: { total: 0 } });
  });

  it('keeps slots at placed locations: PUT /locations refuses (409) to remove or unplace one holding slots', async () => {
    await setup.floor.put('/slots', { slots: [{ productExternalId: 'SHOE', locationCode: 'C-05', quantity: 1 }] });
    const removed = await setup.floor.put('/locations', { locations: LOCATIONS.slice(0, 2), codes: ['DOCK-1'] });
    expect(removed.status).toBe(409);
    expect(removed.body.error.message).toContain('C-05');
    const unplaced = await setup.floor.put('/locations', { locations: LOCATIONS.slice(0, 2), codes: ['DOCK-1', 'C-05'] });
    expect(unplaced.status).toBe(409);
    expect((await setup.floor.get('/locations')).body.data.locations).toHaveLength(3);
    // Moved elsewhere, the slot no longer holds the location.
    expect((await setup.floor.put('/locations', { locations: [...LOCATIONS, { code: 'D-09', aisle: 4, position: 9 }], codes: ['DOCK-1'] })).status).toBe(200);
    await setup.floor.put('/products/SHOE/slots', { slots: [{ locationCode: 'D-09', quantity: 1 }] });
    expect((await setup.floor.put('/locations', { locations: [...LOCATIONS.slice(0, 2), { code: 'D-09', aisle: 4, position: 9 }], codes: ['DOCK-1'] })).status).toBe(200);
    expect((await setup.floor.put('/locations', { locations: [...LOCATIONS, { code: 'D-09', aisle: 4, position: 9 }], codes: ['DOCK-1'] })).status).toBe(200);
    expect((await setup.floor.put('/slots', { slots: [] })).status).toBe(200);
  });

  it('takes 100,000 slots in one request', async () => {
    const { floor } = setup;
    const slots = Array.from({ length: 100_000 }, (_, i) => ({ productExternalId: ['SHOE', 'SOCK', 'HAT'][i % 3]!, locationCode: `BULK-${Math.floor(i / 3)}`, quantity: i % 7 }));
    const codes = [...new Set(slots.map((slot) => slot.locationCode))];
    const placed = await floor.put('/locations', {
      locations: [...LOCATIONS, ...codes.map((code, i) => ({ code, aisle: 1 + (i % 4), position: 1 + (i % 10) }))],
      codes: ['DOCK-1'],
    });
    expect(placed.status).toBe(200);
    const response = await floor.put('/slots', { slots });
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200);
    expect(response.body.data).toEqual({ slots: 100_000, products: 3 });
    expect((await floor.get('/slots?limit=1')).body.pagination.total).toBe(100_000);
    expect((await floor.put('/slots', { slots: [] })).status).toBe(200);
  }, 60_000);
});

describe('floor: slots, concurrent replacements', () => {
  const setup = useFloor({ locations: LOCATIONS, products: PRODUCTS });

  it('runs them one after the other: each answers 200 and the set left is one of those sent', async () => {
    const sets = Array.from({ length: 20 }, (_, i) => [
      { productExternalId: 'SHOE', locationCode: LOCATIONS[i % 3]!.code, quantity: i },
      { productExternalId: ['SOCK', 'HAT'][i % 2]!, locationCode: 'C-05', quantity: 100 + i },
    ]);
    const answers = await Promise.all(
      sets.map((slots, i) => (i % 4 === 0 ? setup.floor.put('/products/SHOE/slots', { slots: [{ locationCode: 'B-03', quantity: i }] }) : setup.floor.put('/slots', { slots }))),
    );
    expect(answers.map((answer) => answer.status)).toEqual(sets.map(() => 200));
    const left = [...(await setup.floor.get('/slots?limit=1000')).body.data].map(({ productExternalId, locationCode, quantity }) => ({ productExternalId, locationCode, quantity })).sort(byProductAndCode);
    const possible = sets.flatMap((slots, i) => {
      const whole = [...slots].sort(byProductAndCode);
      // A product's replacement after a whole one: that set with SHOE's slots replaced.
      const shoeAfter = sets.map((_, j) => (j % 4 === 0 ? [...whole.filter((slot) => slot.productExternalId !== 'SHOE'), { productExternalId: 'SHOE', locationCode: 'B-03', quantity: j }].sort(byProductAndCode) : []));
      return i % 4 === 0 ? [] : [whole, ...shoeAfter];
    });
    expect(possible).toContainEqual(left);
  });
});

describe('floor: slots, bad input changes nothing', () => {
  const setup = useFloor({ locations: LOCATIONS, codes: ['DOCK-1'], products: PRODUCTS });
  const KEPT = [{ productExternalId: 'SHOE', locationCode: 'A-01', quantity: 4 }];

  /** Sends a bad replacement; expects `status` naming `field` (for a 400), and the stored set as it was. */
  async function refused(path: '/slots' | '/products/SHOE/slots' | '/products/NOPE/slots', body: unknown, status: number, field?: string) {
    expect((await setup.floor.put('/slots', { slots: KEPT })).status).toBe(200);
    const response = await setup.floor.put(path, body);
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    if (field) expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await setup.floor.get('/slots')).body.data).toEqual(KEPT.map(face));
    return response;
  }

  const slot = (changes: object) => ({ slots: [{ productExternalId: 'SOCK', locationCode: 'B-03', quantity: 1 }, { productExternalId: 'SOCK', locationCode: 'C-05', quantity: 1, ...changes }] });

  it('refuses a negative or fractional quantity with 400 naming it', async () => {
    await refused('/slots', slot({ quantity: -1 }), 400, 'slots[1].quantity');
    await refused('/slots', slot({ quantity: 1.5 }), 400, 'slots[1].quantity');
    await refused('/products/SHOE/slots', { slots: [{ locationCode: 'B-03', quantity: 0.25 }] }, 400, 'slots[0].quantity');
  });

  it('refuses a location unknown or without a place with 400 naming it', async () => {
    const unknown = await refused('/slots', slot({ locationCode: 'Z-99' }), 400, 'slots[1].locationCode');
    expect(unknown.body.error.code).toBe('VALIDATION_ERROR');
    await refused('/slots', slot({ locationCode: 'DOCK-1' }), 400, 'slots[1].locationCode');
    await refused('/products/SHOE/slots', { slots: [{ locationCode: 'DOCK-1', quantity: 2 }] }, 400, 'slots[0].locationCode');
  });

  it('refuses a (product, location) pair sent twice with 400', async () => {
    await refused('/slots', slot({ locationCode: 'B-03' }), 400, 'slots[1].locationCode');
    await refused('/products/SHOE/slots', { slots: [{ locationCode: 'C-05', quantity: 2 }, { locationCode: 'C-05', quantity: 1 }] }, 400, 'slots[1].locationCode');
  });

  it('refuses the same (location, lot) twice for a product with 400 naming the lot', async () => {
    const lots = { slots: [{ locationCode: 'C-05', quantity: 2, lot: 'L1' }, { locationCode: 'C-05', quantity: 1, lot: 'L1', expiresOn: '2027-01-01' }] };
    await refused('/products/SHOE/slots', lots, 400, 'slots[1].lot');
    await refused('/slots', slot({ locationCode: 'B-03' }), 400, 'slots[1].locationCode');
  });

  it('refuses an expiry that is not a date, or sent without a lot, with 400 naming it', async () => {
    for (const expiresOn of ['2027-02-30', 'tomorrow', '2027-1-5']) await refused('/slots', slot({ lot: 'L1', expiresOn }), 400, 'slots[1].expiresOn');
    await refused('/slots', slot({ expiresOn: '2027-01-05' }), 400, 'slots[1].expiresOn');
    await refused('/slots', slot({ lot: 'x'.repeat(51) }), 400, 'slots[1].lot');
    await refused('/slots', slot({ lot: '' }), 400, 'slots[1].lot');
  });

  it('refuses a lot on a product that is not lot-tracked with 400 naming the lot', async () => {
    const response = await refused('/slots', slot({ lot: 'L1' }), 400, 'slots[1].lot');
    expect(JSON.stringify(response.body)).toContain('lotTracked');
  });

  it('answers 404 for an unknown product', async () => {
    const response = await refused('/slots', slot({ productExternalId: 'NOPE' }), 404);
    expect(response.body.error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('NOPE') });
    await refused('/products/NOPE/slots', { slots: [{ locationCode: 'A-01', quantity: 1 }] }, 404);
    expect((await setup.floor.get('/slots?productExternalId=NOPE')).status).toBe(404);
  });

  it('refuses more than 100,000 slots with 400', async () => {
    const slots = Array.from({ length: 100_001 }, (_, i) => ({ productExternalId: 'SHOE', locationCode: `X-${i}`, quantity: 1 }));
    await refused('/slots', { slots }, 400, 'slots');
  });

  it('refuses a cursor it did not make with 400', async () => {
    expect((await setup.floor.get('/slots?cursor=nonsense')).status).toBe(400);
    expect((await setup.floor.get('/slots/mismatches?cursor=nonsense')).status).toBe(400);
  });
});

describe('floor: slots, security', () => {
  const setup = useFloor({ locations: LOCATIONS, products: PRODUCTS });

  it('needs the admin token', async () => {
    const base = `/api/v1/warehouse/tenants/${setup.tenant.slug}`;
    for (const [method, url] of [
      ['GET', `${base}/slots`],
      ['PUT', `${base}/slots`],
      ['GET', `${base}/slots/mismatches`],
      ['PUT', `${base}/products/SHOE/slots`],
    ] as const) {
      const response = await setup.ctx.app.inject({ method, url, payload: method === 'PUT' ? { slots: [] } : undefined });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it("keeps each tenant's slots its own", async () => {
    await setup.floor.put('/slots', { slots: [{ productExternalId: 'SHOE', locationCode: 'A-01', quantity: 10 }] });
    const other = await setup.ctx.tenant(UNLIMITED);
    const otherFloor = warehouse(setup.ctx, other);
    expect((await otherFloor.put('/layout', { aisles: 4, positionsPerAisle: 10, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 2, depotAisle: 1 })).status).toBe(200);
    expect((await otherFloor.put('/locations', { locations: LOCATIONS })).status).toBe(200);
    expect((await otherFloor.get('/slots')).body.data).toEqual([]);
    // The other tenant knows no SHOE: a 404, and nothing of the first tenant's changes.
    expect((await otherFloor.put('/products/SHOE/slots', { slots: [] })).status).toBe(404);
    expect((await otherFloor.put('/slots', { slots: [] })).status).toBe(200);
    expect((await setup.floor.get('/slots')).body.data).toEqual([face({ productExternalId: 'SHOE', locationCode: 'A-01', quantity: 10 })]);
  });
});
