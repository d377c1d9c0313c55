import { expect, it } from 'vitest';
import { LAYOUT } from '../floor/helpers';
import { item, order, warehouse } from '../orders/helpers';
import { checkScreen, ConsoleFloor, describeInBrowser, type FloorSetup, scan, signIn } from './browser';

const PIN = '135790';

/*
 * JAR has two pick faces: 2 at A-01 (near the depot) and 5 at C-08. An order of 2 is planned at
 * A-01; the picker finds 1 there, records a short pick, and is sent on to C-08 for the other.
 */
const FLOOR: FloorSetup = {
  layout: LAYOUT,
  locations: [
    { code: 'A-01', aisle: 1, position: 1 },
    { code: 'C-08', aisle: 3, position: 8 },
  ],
  products: [{ externalId: 'JAR', sku: 'SKU-JAR', name: 'Glass jar', stock: 7 }],
  staff: [{ username: 'eva', role: 'picker' }],
  pin: PIN,
};

async function seed(floor: ConsoleFloor): Promise<void> {
  const slots = [
    { locationCode: 'A-01', quantity: 2 },
    { locationCode: 'C-08', quantity: 5 },
  ];
  expect((await warehouse(floor.ctx, floor.tenant).put('/products/JAR/slots', { slots })).status).toBe(200);
}

describeInBrowser('console in a real browser: a short pick finds the stock', { floor: FLOOR, seed }, (floor) => {
  it('records a short pick and shows the new stop at the face that holds the rest', async () => {
    expect((await floor().tenant.api.post('/orders', order('SP-1', [item('JAR', 2)]))).status).toBe(201);
    const picker = await floor().open();
    const { page } = picker;
    await signIn(page, floor().tenant.slug, 'eva', PIN);
    await page.getByRole('button', { name: 'Start picking' }).click();
    await page.getByText('Stops done: 0 of 1').waitFor();
    const stop = page.getByRole('article');
    await expect.poll(() => stop.getByRole('heading', { level: 2 }).innerText()).toBe('A-01');

    await scan(page, 'A-01');
    await page.getByText('Location A-01 confirmed').waitFor();
    await page.getByLabel('Quantity').fill('1');
    await page.getByRole('button', { name: 'Short pick' }).click();
    await page.getByRole('radio', { name: 'Not found' }).check();
    await page.getByRole('button', { name: 'Record short pick' }).click();

    await page.getByText('Short pick recorded. Glass jar goes on at C-08: 1 more, a stop of your route.').waitFor();
    await page.getByText('Stops done: 1 of 2').waitFor();
    await expect.poll(() => stop.getByRole('heading', { level: 2 }).innerText()).toBe('C-08');
    await expect.poll(() => stop.innerText()).toContain('Take 1 here for tote 1');
    await checkScreen(page, 'picker-short-pick');

    await scan(page, 'C-08');
    await page.getByText('Location C-08 confirmed').waitFor();
    await scan(page, 'SKU-JAR');
    await page.getByText('Stops done: 2 of 2').waitFor();
    await page.getByRole('button', { name: 'Finish wave' }).click();
    await page.getByRole('heading', { name: 'Wave finished' }).waitFor();

    const picked = (await floor().tenant.api.get('/orders/SP-1')).body.data;
    expect(picked.status).toBe('PICKED');
    expect(picked.items).toEqual([expect.objectContaining({ productExternalId: 'JAR', quantity: 2 })]);
    const slots = (await warehouse(floor().ctx, floor().tenant).get('/slots?productExternalId=JAR')).body.data;
    expect(slots.map((slot: { locationCode: string; quantity: number }) => [slot.locationCode, slot.quantity])).toEqual([
      ['A-01', 0],
      ['C-08', 4],
    ]);
    expect(picker.errors).toEqual([]);
  });
});
