import { describe, expect, it } from 'vitest';
import { UNLIMITED } from '../helpers/context';
import { floorOf, seedPlacedProducts, sShapeWaveOf, useFloor } from '../floor/helpers';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/*
 * The lots a warehouse holds and the orders that got them (the recall question) are its own: the
 * other tenant, though it has a product of the same externalId and a lot of the same name, reads
 * only its own lots and orders, under its own path and with its own key.
 */
describe("another tenant cannot read this tenant's lots", () => {
  const LOCATIONS = [{ code: 'A-01', aisle: 1, position: 1 }];
  const setup = useFloor({ locations: LOCATIONS, products: [{ externalId: 'MILK', stock: 100, lotTracked: true }] });

  it('answers the other tenant its own lots, its own recall and a 404 for a product it does not have; its key is refused on this path', async () => {
    expect((await setup.floor.put('/slots', { slots: [{ productExternalId: 'MILK', locationCode: 'A-01', quantity: 5, lot: 'M1', expiresOn: day(2) }] })).status).toBe(200);
    const { wave, ids } = await sShapeWaveOf(setup, [['MILK', 2]]);
    for (const stop of wave.stops) {
      for (const line of stop.lines) {
        const pick = { orderExternalId: line.orderExternalId, productExternalId: 'MILK', quantity: line.quantity, locationCode: stop.locationCode };
        expect((await setup.floor.post(`/waves/${wave.id}/picks`, pick)).status).toBe(200);
      }
    }
    expect((await setup.floor.post(`/waves/${wave.id}/complete`)).status).toBe(200);
    // This tenant reads them: the test would pass vacuously otherwise.
    expect((await setup.floor.get('/lots?expiringWithinDays=7')).body.data).toEqual([expect.objectContaining({ productExternalId: 'MILK', lot: 'M1', quantity: 3 })]);
    expect((await setup.floor.get('/lots/MILK/M1/orders')).body.data).toEqual([expect.objectContaining({ orderExternalId: ids[0], quantity: 2 })]);

    const other = await setup.ctx.tenant(UNLIMITED);
    const otherFloor = await floorOf(setup.ctx, other, LOCATIONS);
    // Before it has a MILK, the recall is a 404, as for any product it does not know.
    expect((await otherFloor.get('/lots')).body.data).toEqual([]);
    expect((await otherFloor.get('/lots/MILK/M1/orders')).status).toBe(404);

    await seedPlacedProducts(other, [{ externalId: 'MILK', lotTracked: true }]);
    expect((await otherFloor.put('/slots', { slots: [{ productExternalId: 'MILK', locationCode: 'A-01', quantity: 9, lot: 'M1', expiresOn: day(2) }] })).status).toBe(200);
    expect((await otherFloor.get('/lots?expiringWithinDays=7')).body.data).toEqual([
      { productExternalId: 'MILK', sku: 'SKU-MILK', lot: 'M1', expiresOn: day(2), quantity: 9, locationCodes: ['A-01'] },
    ]);
    const recall = await otherFloor.get('/lots/MILK/M1/orders');
    expect(recall.status).toBe(200);
    expect(recall.body.data).toEqual([]);
    expect(recall.body.pagination).toMatchObject({ total: 0, hasMore: false });

    // The other tenant's key does not open this tenant's warehouse API.
    for (const url of ['/lots', '/lots/MILK/M1/orders']) {
      const response = await setup.ctx.app.inject({ method: 'GET', url: `/api/v1/warehouse/tenants/${setup.tenant.slug}${url}`, headers: { authorization: `Bearer ${other.key}` } });
      expect(response.statusCode, url).toBe(401);
    }
  });
});
