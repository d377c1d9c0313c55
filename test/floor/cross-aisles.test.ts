import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, UNLIMITED } from '../helpers/context';
import { warehouse } from '../orders/helpers';
import { LAYOUT } from './helpers';

/** LAYOUT cut into two blocks: a cross aisle 2 wide between positions 5 and 6. */
const TWO_BLOCKS = { ...LAYOUT, crossAisles: [{ afterPosition: 5, width: 2 }] };

describe('floor: middle cross aisles', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(() => ctx.close());

  const freshFloor = async () => warehouse(ctx, await ctx.tenant(UNLIMITED));

  describe('accepted', () => {
    it('stores them and answers them front to back, whatever order they were sent in', async () => {
      const api = await freshFloor();
      const sent = { ...LAYOUT, crossAisles: [{ afterPosition: 7, width: 1.5 }, { afterPosition: 3, width: 2 }] };
      const stored = { ...LAYOUT, crossAisles: [{ afterPosition: 3, width: 2 }, { afterPosition: 7, width: 1.5 }] };
      const put = await api.put('/layout', sent);
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body.data).toEqual(stored);
      expect((await api.get('/layout')).body.data).toEqual(stored);
      // What GET answers can be sent back as it is.
      expect((await api.put('/layout', stored)).body.data).toEqual(stored);
    });

    it('removes them when a new layout leaves them out or sends none', async () => {
      const api = await freshFloor();
      await api.put('/layout', TWO_BLOCKS);
      expect((await api.put('/layout', LAYOUT)).body.data).toEqual({ ...LAYOUT, crossAisles: [] });
      expect((await api.get('/layout')).body.data.crossAisles).toEqual([]);
      await api.put('/layout', TWO_BLOCKS);
      expect((await api.put('/layout', { ...LAYOUT, crossAisles: [] })).status).toBe(200);
      expect((await api.get('/layout')).body.data).toEqual({ ...LAYOUT, crossAisles: [] });
    });

    it('adds them to a floor with placed locations, which keep their aisle and position', async () => {
      const api = await freshFloor();
      await api.put('/layout', LAYOUT);
      const locations = [
        { code: 'A-05', aisle: 1, position: 5, level: null },
        { code: 'A-06', aisle: 1, position: 6, level: null },
        { code: 'D-10', aisle: 4, position: 10, level: 2 },
      ];
      expect((await api.put('/locations', { locations })).status).toBe(200);
      const put = await api.put('/layout', TWO_BLOCKS);
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect((await api.get('/locations')).body.data).toEqual({ codes: ['A-05', 'A-06', 'D-10'], locations });
      // Fewer positions still leave D-10 off the floor, cross aisles or not.
      const shorter = await api.put('/layout', { ...TWO_BLOCKS, positionsPerAisle: 9 });
      expect(shorter.status).toBe(409);
      expect(shorter.body.error.message).toContain('D-10');
      expect((await api.get('/layout')).body.data).toEqual(TWO_BLOCKS);
    });

    /*
     * stand in aisle 1, in line with the depot, on either side of the cross aisle:
     * the walk goes up aisle 1 to A-08 and back, 2 × y(8). Without cross aisles y(8) = 2 + 7 = 9;
     * the cross aisle after position 5 pushes A-08 back by its width, 2: the walk crosses it twice.
     */
    it.each(['return', 'optimal'])('lengthens a %s walk across it by its width each way', async (policy) => {
      const api = await freshFloor();
      await api.put('/layout', LAYOUT);
      await api.put('/locations', { locations: [{ code: 'A-03', aisle: 1, position: 3 }, { code: 'A-08', aisle: 1, position: 8 }] });
      const walk = async () => (await api.post('/routes', { locations: ['A-08', 'A-03'], policy })).body.data.distance;
      expect(await walk()).toBe(18);
      await api.put('/layout', TWO_BLOCKS);
      expect(await walk()).toBe(22);
    });
  });

  describe('refused with 400 naming the field, nothing changed', () => {
    it.each([
      ['afterPosition 0', [{ afterPosition: 0, width: 1 }], 'crossAisles[0].afterPosition'],
      ['afterPosition at the last position', [{ afterPosition: 2, width: 1 }, { afterPosition: 10, width: 1 }], 'crossAisles[1].afterPosition'],
      ['afterPosition not whole', [{ afterPosition: 2.5, width: 1 }], 'crossAisles[0].afterPosition'],
      ['afterPosition twice', [{ afterPosition: 4, width: 1 }, { afterPosition: 4, width: 2 }], 'crossAisles[1].afterPosition'],
      ['width 0', [{ afterPosition: 3, width: 1 }, { afterPosition: 4, width: 1 }, { afterPosition: 6, width: 0 }], 'crossAisles[2].width'],
      ['negative width', [{ afterPosition: 3, width: -1 }], 'crossAisles[0].width'],
      ['width not a number', [{ afterPosition: 3, width: '2' }], 'crossAisles[0].width'],
      ['afterPosition missing', [{ width: 2 }], 'crossAisles[0].afterPosition'],
      ['not a list', { afterPosition: 3, width: 2 }, 'crossAisles'],
    ])('%s', async (_case, crossAisles, field) => {
      const api = await freshFloor();
      await api.put('/layout', TWO_BLOCKS);
      const response = await api.put('/layout', { ...LAYOUT, crossAisles });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      expect((await api.get('/layout')).body.data).toEqual(TWO_BLOCKS);
    });

    it('21 cross aisles, even on a floor long enough for them', async () => {
      const api = await freshFloor();
      await api.put('/layout', TWO_BLOCKS);
      const many = Array.from({ length: 21 }, (_, i) => ({ afterPosition: i + 1, width: 1 }));
      const response = await api.put('/layout', { ...LAYOUT, positionsPerAisle: 30, crossAisles: many });
      expect(response.status).toBe(400);
      expect(response.body.error.details.map((d: { field: string }) => d.field)).toEqual(['crossAisles']);
      expect((await api.get('/layout')).body.data).toEqual(TWO_BLOCKS);
      expect((await api.put('/layout', { ...LAYOUT, positionsPerAisle: 30, crossAisles: many.slice(0, 20) })).status).toBe(200);
    });
  });

  it('the stored column holds a list and nothing else', async () => {
    const tenant = await ctx.tenant(UNLIMITED);
    await warehouse(ctx, tenant).put('/layout', TWO_BLOCKS);
    const store = (json: string) => sql`UPDATE floor_layouts SET cross_aisles = ${json}::jsonb WHERE tenant_id = ${tenant.id}`.execute(ctx.database.db);
    await expect(store('{"afterPosition": 5, "width": 2}')).rejects.toThrow(/check constraint/);
    await expect(store('null')).rejects.toThrow(/check constraint/);
    expect((await warehouse(ctx, tenant).get('/layout')).body.data).toEqual(TWO_BLOCKS);
  });
});
