import { describe, expect, it } from 'vitest';
import { useFloor } from '../floor/helpers';
import { stockOf } from '../orders/helpers';
import { ORIGIN, signedIn } from './helpers';

const LOCATIONS = [
  { code: 'A-01', aisle: 1, position: 1 },
  { code: 'B-03', aisle: 2, position: 3 },
];

describe('console: the count screen', () => {
  const setup = useFloor({
    locations: LOCATIONS,
    products: [
      { externalId: 'MUG', stock: 6, barcode: '4006381333931' },
      { externalId: 'CUP', stock: 2 },
    ],
  });

  /** MUG: stock 6, all at A-01; CUP: stock 2, at B-03; and an open count of A-01: answers its id. */
  async function countOfA01(): Promise<string> {
    for (const [externalId, stock] of [['MUG', 6], ['CUP', 2]] as const) {
      expect((await setup.tenant.api.post('/products', { externalId, sku: `SKU-${externalId}`, name: `Product ${externalId}`, stock })).status).toBe(200);
    }
    expect((await setup.floor.put('/slots', { slots: [{ productExternalId: 'MUG', locationCode: 'A-01', quantity: 6 }, { productExternalId: 'CUP', locationCode: 'B-03', quantity: 2 }] })).status).toBe(200);
    const made = await setup.floor.post('/counts', { locationCodes: ['A-01'] });
    expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
    return made.body.data[0]!.id;
  }

  it('lists the open counts with the products expected, never how many, and finishes one as the picker who counted', async () => {
    const id = await countOfA01();
    const picker = await signedIn(setup.ctx, setup.tenant, 'picker');
    const open = await picker.get('/counts');
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    expect(open.body.data).toEqual([
      {
        id,
        locationCode: 'A-01',
        reason: 'REQUESTED',
        status: 'OPEN',
        createdAt: expect.any(String),
        products: [{ productExternalId: 'MUG', sku: 'SKU-MUG', name: 'Product MUG', barcode: '4006381333931', packagings: [], keptByLot: false }],
      },
    ]);
    // Blind: nothing the screen reads says what the records hold.
    expect(JSON.stringify(open.body)).not.toMatch(/"(quantity|stock|recordedQuantity)"/);

    const found = await picker.get('/counting/products/SKU-CUP');
    expect(found.body.data).toEqual({ productExternalId: 'CUP', sku: 'SKU-CUP', name: 'Product CUP', barcode: null, packagings: [], keptByLot: false });
    const finished = await picker.post(`/counts/${id}/finish`, { lines: [{ productExternalId: 'MUG', quantity: 5 }, { productExternalId: 'CUP', quantity: 1 }] });
    expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    expect(finished.body.data).toMatchObject({ id, status: 'DONE' });
    expect(JSON.stringify(finished.body)).not.toMatch(/"(recordedQuantity|difference)"/);
    const history = (await setup.floor.get(`/counts/${id}`)).body.data;
    expect(history).toMatchObject({ status: 'DONE', doneBy: picker.user.username });
    expect(history.lines.map((line) => [line.productExternalId, line.recordedQuantity, line.countedQuantity])).toEqual([
      ['CUP', 0, 1],
      ['MUG', 6, 5],
    ]);
    expect(await stockOf(setup.tenant, 'MUG')).toBe(5);
    expect(await stockOf(setup.tenant, 'CUP')).toBe(3);
    expect((await picker.get('/counts')).body.data).toEqual([]);
  });

  it('answers 409 naming the state to a second finish, 404 for a code no product has, 400 naming a bad line', async () => {
    const id = await countOfA01();
    const picker = await signedIn(setup.ctx, setup.tenant, 'supervisor');
    const bad = await picker.post(`/counts/${id}/finish`, { lines: [{ productExternalId: 'MUG', quantity: -1 }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details!.map((detail) => detail.field)).toEqual(['lines[0].quantity']);
    expect((await picker.get('/counting/products/NOTHING-HERE')).status).toBe(404);
    expect((await picker.post(`/counts/${id}/finish`, { lines: [] })).status).toBe(200);
    const again = await picker.post(`/counts/${id}/finish`, { lines: [] });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('DONE');
  });

  it('names a product kept by lot once, as kept by lot, however many lots it has at the location, and finishes its lots', async () => {
    expect((await setup.tenant.api.post('/products', { externalId: 'OAT', sku: 'SKU-OAT', name: 'Oat milk', stock: 5, lotTracked: true })).status).toBeLessThan(300);
    const slots = [
      { productExternalId: 'OAT', locationCode: 'B-03', quantity: 2, lot: 'L-1' },
      { productExternalId: 'OAT', locationCode: 'B-03', quantity: 3, lot: 'L-2' },
    ];
    expect((await setup.floor.put('/slots', { slots })).status).toBe(200);
    const made = await setup.floor.post('/counts', { locationCodes: ['B-03'] });
    const picker = await signedIn(setup.ctx, setup.tenant, 'picker');
    const open = (await picker.get('/counts')).body.data.find((count) => count.locationCode === 'B-03')!;
    expect(open.products).toEqual([{ productExternalId: 'OAT', sku: 'SKU-OAT', name: 'Oat milk', barcode: null, packagings: [], keptByLot: true }]);
    expect((await picker.get('/counting/products/SKU-OAT')).body.data.keptByLot).toBe(true);
    const finished = await picker.post(`/counts/${made.body.data[0]!.id}/finish`, { lines: [{ productExternalId: 'OAT', lot: 'L-2', quantity: 3 }] });
    expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    expect(JSON.stringify(finished.body)).not.toMatch(/"(recordedQuantity|difference)"/);
    expect(await stockOf(setup.tenant, 'OAT')).toBe(3);
  });

  it('is for pickers and supervisors signed in, from the console itself, of their own warehouse', async () => {
    const id = await countOfA01();
    const packer = await signedIn(setup.ctx, setup.tenant, 'packer');
    expect((await packer.get('/counts')).status).toBe(403);
    expect((await packer.post(`/counts/${id}/finish`, { lines: [] })).status).toBe(403);
    const picker = await signedIn(setup.ctx, setup.tenant, 'picker');
    const crossSite = await picker.request('POST', `/counts/${id}/finish`, { body: { lines: [] }, headers: { origin: 'https://evil.example' } });
    expect(crossSite.status).toBe(403);
    const signedOut = await setup.ctx.app.inject({ method: 'GET', url: '/console/api/counts', headers: { origin: ORIGIN } });
    expect(signedOut.statusCode).toBe(401);

    const other = await setup.ctx.tenant();
    const stranger = await signedIn(setup.ctx, other, 'picker');
    expect((await stranger.get('/counts')).body.data).toEqual([]);
    expect((await stranger.post(`/counts/${id}/finish`, { lines: [] })).status).toBe(404);
    expect((await setup.floor.get(`/counts/${id}`)).body.data.status).toBe('OPEN');
    expect(await stockOf(setup.tenant, 'MUG')).toBe(6);
  });
});
