import { expect, it } from 'vitest';
import { LAYOUT } from '../floor/helpers';
import { item, order, stockOf, warehouse } from '../orders/helpers';
import { accessibilityProblems, ConsoleFloor, describeInBrowser, DESKTOP, type FloorSetup, scan, signIn } from './browser';

const PIN = '135790';

/*
 * MUG stands at two slots, 2 at A-01 and 2 at C-08: an order of 4 is planned as 2 at each. The
 * picker is told at each stop what to take there, and where the rest is.
 */
const FLOOR: FloorSetup = {
  layout: LAYOUT,
  locations: [
    { code: 'A-01', aisle: 1, position: 1 },
    { code: 'C-08', aisle: 3, position: 8 },
  ],
  products: [{ externalId: 'MUG', sku: 'SKU-MUG', name: 'Blue mug', stock: 4 }],
  staff: [
    { username: 'cy', role: 'picker' },
    { username: 'di', role: 'supervisor' },
  ],
  pin: PIN,
};

async function seed(floor: ConsoleFloor): Promise<void> {
  const slots = [
    { locationCode: 'A-01', quantity: 2 },
    { locationCode: 'C-08', quantity: 2 },
  ];
  expect((await warehouse(floor.ctx, floor.tenant).put('/products/MUG/slots', { slots })).status).toBe(200);
}

describeInBrowser('console in a real browser: a line split over two slots', { floor: FLOOR, seed }, (floor) => {
  it('picks 2 at each stop, each pick naming its stop, and completing lowers both slots', async () => {
    expect((await floor().tenant.api.post('/orders', order('S-1', [item('MUG', 4)]))).status).toBe(201);
    const picker = await floor().open();
    const { page } = picker;
    await signIn(page, floor().tenant.slug, 'cy', PIN);
    await page.getByRole('button', { name: 'Start picking' }).click();
    await page.getByText('Stops done: 0 of 2').waitFor();
    const [first, second] = (await warehouse(floor().ctx, floor().tenant).get('/waves?status=PICKING')).body.data[0]!.stops.map((stop) => stop.locationCode) as [string, string];
    expect([first, second].sort()).toEqual(['A-01', 'C-08']);

    const stop = page.getByRole('article');
    await expect.poll(() => stop.getByRole('heading', { level: 2 }).innerText()).toBe(first);
    await expect.poll(() => stop.innerText()).toContain('Take 2 here for tote 1');
    expect(await stop.innerText()).toContain(`2 more at ${second}`);
    await scan(page, first);
    await page.getByText(`Location ${first} confirmed`).waitFor();
    // Each product scan counts one unit of what to take here.
    await scan(page, 'SKU-MUG');
    await expect.poll(() => stop.innerText()).toContain('1 of 2');
    await scan(page, 'SKU-MUG');

    await expect.poll(() => stop.getByRole('heading', { level: 2 }).innerText()).toBe(second);
    await expect.poll(() => stop.innerText()).toContain('Take 2 here for tote 1');
    expect(await stop.innerText()).not.toContain('more at');
    await scan(page, second);
    await page.getByText(`Location ${second} confirmed`).waitFor();
    await scan(page, 'SKU-MUG');
    await expect.poll(() => stop.innerText()).toContain('1 of 2');
    await scan(page, 'SKU-MUG');
    await page.getByText('Stops done: 2 of 2').waitFor();
    await page.getByRole('button', { name: 'Finish wave' }).click();
    await page.getByRole('heading', { name: 'Wave finished' }).waitFor();

    expect((await floor().tenant.api.get('/orders/S-1')).body.data.status).toBe('PICKED');
    expect(await stockOf(floor().tenant, 'MUG')).toBe(0);
    const slots = (await warehouse(floor().ctx, floor().tenant).get('/slots?productExternalId=MUG')).body.data;
    expect(slots.map((slot) => [slot.locationCode, slot.quantity])).toEqual([
      ['A-01', 0],
      ['C-08', 0],
    ]);
    expect(picker.errors).toEqual([]);
  });

  it("shows the supervisor the products whose slots disagree with stock, in a table named for it", async () => {
    expect((await warehouse(floor().ctx, floor().tenant).put('/products/MUG/slots', { slots: [{ locationCode: 'C-08', quantity: 5 }] })).status).toBe(200);
    const supervisor = await floor().open(DESKTOP);
    const { page } = supervisor;
    await signIn(page, floor().tenant.slug, 'di', PIN);
    const table = page.getByRole('table', { name: 'Slots that disagree with stock' });
    await table.waitFor();
    expect(await table.getByRole('row', { name: /MUG/ }).innerText()).toMatch(/MUG \(SKU-MUG\)\s+0\s+5/);
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(supervisor.errors).toEqual([]);
  });
});
