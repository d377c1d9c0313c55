import { expect, it } from 'vitest';
import { LAYOUT } from '../floor/helpers';
import { stockOf, warehouse } from '../orders/helpers';
import { checkScreen, ConsoleFloor, describeInBrowser, feedbackOf, type FloorSetup, scan } from './browser';

const PIN = '246813';

/*
 * A picker counts A-01, blind: the screen names the products expected there but never how many
 * the records hold. A-01 should hold 5 mugs and 3 tea tins; the picker finds 4 mugs, 3 tins and a
 * hat whose slot is at B-03.
 */
const FLOOR: FloorSetup = {
  layout: LAYOUT,
  locations: [
    { code: 'A-01', aisle: 1, position: 1 },
    { code: 'B-03', aisle: 2, position: 3 },
    { code: 'C-05', aisle: 3, position: 5 },
  ],
  products: [
    { externalId: 'MUG', sku: 'SKU-MUG', name: 'Blue mug', stock: 5, barcode: '4006381333931' },
    { externalId: 'TEA', sku: 'SKU-TEA', name: 'Tea tin', stock: 3 },
    { externalId: 'HAT', sku: 'SKU-HAT', name: 'Wool hat', stock: 2, barcode: '7312345678906' },
    { externalId: 'MILK', sku: 'SKU-MILK', name: 'Oat milk', stock: 10, barcode: '9521234543213', lotTracked: true },
  ],
  staff: [{ username: 'ana', name: 'Ana Alves', role: 'picker' }],
  pin: PIN,
};

async function seed(floor: ConsoleFloor): Promise<void> {
  const slots = [
    { productExternalId: 'MUG', locationCode: 'A-01', quantity: 5 },
    { productExternalId: 'TEA', locationCode: 'A-01', quantity: 3 },
    { productExternalId: 'HAT', locationCode: 'B-03', quantity: 2 },
    { productExternalId: 'MILK', locationCode: 'C-05', quantity: 4, lot: 'EARLY', expiresOn: '2031-05-01' },
    { productExternalId: 'MILK', locationCode: 'C-05', quantity: 6, lot: 'LATER', expiresOn: '2031-06-01' },
  ];
  expect((await warehouse(floor.ctx, floor.tenant).put('/slots', { slots })).status).toBe(200);
}

describeInBrowser('console in a real browser: a blind count', { floor: FLOOR, seed }, (floor) => {
  it('confirms the location, counts by scans and by a number typed in Counted, and finishing corrects slots and stock', async () => {
    const made = await warehouse(floor().ctx, floor().tenant).post('/counts', { locationCodes: ['A-01'] });
    expect(made.status).toBe(201);
    const counter = await floor().signedIn('ana');
    const { page } = counter;
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Count' }).click();
    await page.getByRole('heading', { name: 'Open counts' }).waitFor();
    await page.getByRole('button', { name: 'Count A-01' }).click();

    const card = page.getByRole('article', { name: 'A-01' });
    await card.waitFor();
    // Blind: what the records hold (5 mugs, 3 tins) is nowhere on the screen.
    expect(await card.innerText()).not.toMatch(/\b[35]\b/);
    await scan(page, 'B-03');
    await card.getByRole('alert').getByText('Wrong scan: B-03. Expected location A-01.').waitFor();
    expect((await feedbackOf(page)).vibrations).toHaveLength(1);
    await scan(page, 'A-01');
    await card.getByRole('status').getByText('Location A-01 confirmed. Scan each unit there.').waitFor();
    for (let unit = 1; unit <= 4; unit++) {
      await scan(page, '4006381333931');
      await card.getByRole('status').getByText(`Counted ${unit} × Blue mug.`).waitFor();
    }
    // A hat, expected elsewhere: counted here too.
    await scan(page, '7312345678906');
    await card.getByRole('status').getByText('Counted 1 × Wool hat.').waitFor();
    await card.getByRole('button', { name: 'Tea tin' }).click();
    await card.getByLabel('Counted').fill('3');
    await card.getByLabel('Counted').press('Enter');
    await card.getByRole('status').getByText('Counted 3 × Tea tin.').waitFor();
    await checkScreen(page, 'count');

    await card.getByRole('button', { name: 'Finish count' }).click();
    await page.getByRole('status').getByText('Count of A-01 finished: 8 units counted.').waitFor();
    await page.getByText('No count is open.').waitFor();

    const done = (await warehouse(floor().ctx, floor().tenant).get(`/counts/${made.body.data[0]!.id}`)).body.data;
    expect(done).toMatchObject({ status: 'DONE', doneBy: 'ana' });
    expect(done.lines.map((line) => [line.productExternalId, line.recordedQuantity, line.countedQuantity, line.difference])).toEqual([
      ['HAT', 0, 1, 1],
      ['MUG', 5, 4, -1],
      ['TEA', 3, 3, 0],
    ]);
    const slots = (await warehouse(floor().ctx, floor().tenant).get('/slots')).body.data
      .filter((slot) => slot.productExternalId !== 'MILK')
      .map((slot) => [slot.productExternalId, slot.locationCode, slot.quantity])
      .sort();
    expect(slots).toEqual([
      ['HAT', 'A-01', 1],
      ['HAT', 'B-03', 2],
      ['MUG', 'A-01', 4],
      ['TEA', 'A-01', 3],
    ]);
    expect([await stockOf(floor().tenant, 'MUG'), await stockOf(floor().tenant, 'TEA'), await stockOf(floor().tenant, 'HAT')]).toEqual([4, 3, 3]);
    expect(counter.errors).toEqual([]);
  });

  it('counts a product kept by lot lot by lot: a GS1 label names the lot, a plain scan asks for it; finishing sets the lot slots', async () => {
    const made = await warehouse(floor().ctx, floor().tenant).post('/counts', { locationCodes: ['C-05'] });
    expect(made.status).toBe(201);
    const counter = await floor().signedIn('ana');
    const { page } = counter;
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Count' }).click();
    await page.getByRole('button', { name: 'Count C-05' }).click();
    const card = page.getByRole('article', { name: 'C-05' });
    await card.waitFor();
    // Blind: what the records hold of each lot (4, 6) is nowhere on the screen.
    expect(await card.innerText()).not.toMatch(/\b[46]\b/);
    await scan(page, 'C-05');
    await card.getByRole('status').getByText('Location C-05 confirmed. Scan each unit there.').waitFor();
    // A GS1 label's (10) counts into that lot.
    for (let unit = 1; unit <= 2; unit++) {
      await scan(page, '(01)09521234543213(10)EARLY');
      await card.getByRole('status').getByText(`Counted ${unit} × Oat milk, lot EARLY.`).waitFor();
    }
    // A lot the location had no slot of, with its expiry from (17).
    await scan(page, '(01)09521234543213(10)NEW(17)310701');
    await card.getByRole('status').getByText('Counted 1 × Oat milk, lot NEW.').waitFor();
    // A plain barcode asks for the lot; the units scanned wait for it, and another product is not counted meanwhile.
    await scan(page, '9521234543213');
    await card.getByRole('status').getByText('Oat milk is counted by lot: type the lot of the 1 unit scanned into Lot, or scan the GS1 label of the next unit.').waitFor();
    await scan(page, '9521234543213');
    await card.getByRole('status').getByText('Oat milk is counted by lot: type the lot of the 2 units scanned into Lot, or scan the GS1 label of the next unit.').waitFor();
    await scan(page, '4006381333931');
    await card.getByRole('alert').getByText('Not counted: first type the lot of the 2 units of Oat milk scanned into Lot, or scan the GS1 label of the next one.').waitFor();
    await card.getByLabel('Lot', { exact: true }).fill('LATER');
    await card.getByLabel('Lot', { exact: true }).press('Enter');
    await card.getByRole('status').getByText('Counted 2 × Oat milk, lot LATER.').waitFor();
    await card.getByRole('button', { name: 'Lot LATER' }).click();
    await card.getByLabel('Counted').fill('5');
    await card.getByLabel('Counted').press('Enter');
    await card.getByRole('status').getByText('Counted 5 × Oat milk, lot LATER.').waitFor();
    await card.getByRole('list', { name: 'Lots of Oat milk' }).getByText('Lot NEW').waitFor();
    await checkScreen(page, 'count-lots');

    await card.getByRole('button', { name: 'Finish count' }).click();
    await page.getByRole('status').getByText('Count of C-05 finished: 8 units counted.').waitFor();
    const done = (await warehouse(floor().ctx, floor().tenant).get(`/counts/${made.body.data[0]!.id}`)).body.data;
    expect(done.lines.map((line) => [line.lot, line.recordedQuantity, line.countedQuantity])).toEqual([
      ['EARLY', 4, 2],
      ['LATER', 6, 5],
      ['NEW', 0, 1],
    ]);
    const slots = (await warehouse(floor().ctx, floor().tenant).get('/slots?productExternalId=MILK')).body.data.map((slot) => [slot.lot, slot.quantity, slot.expiresOn]);
    expect(slots).toEqual([
      ['EARLY', 2, '2031-05-01'],
      ['LATER', 5, '2031-06-01'],
      ['NEW', 1, '2031-07-01'],
    ]);
    expect(await stockOf(floor().tenant, 'MILK')).toBe(8);
    expect(counter.errors).toEqual([]);
  });
});
