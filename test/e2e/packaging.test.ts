import { expect, it } from 'vitest';
import { LAYOUT } from '../floor/helpers';
import { warehouse } from '../orders/helpers';
import { checkScreen, describeInBrowser, type FloorSetup, scan, signIn } from './browser';

const PIN = '246801';

/*
 * MUG comes in cases of 12 (their own barcode) and carries a GTIN-13 barcode. An order of 15: the
 * picker scans the case (12), then a GS1 label in its bracketed form with (01) and a (37) count of 3.
 */
const FLOOR: FloorSetup = {
  layout: LAYOUT,
  locations: [{ code: 'A-01', aisle: 1, position: 1 }],
  products: [
    {
      externalId: 'MUG',
      sku: 'SKU-MUG',
      name: 'Red mug',
      stock: 40,
      locationCode: 'A-01',
      barcode: '9521234543213',
      packagings: [{ name: 'case', quantity: 12, barcode: 'CASE-MUG-12' }],
    },
  ],
  staff: [{ username: 'ines', role: 'picker' }],
  pin: PIN,
};

describeInBrowser('console in a real browser: scanning packagings and GS1 labels', { floor: FLOOR }, (floor) => {
  it('a case scan counts 12, a GS1 string with (01) and (37) counts its units, and the stop shows the packagings', async () => {
    await floor().placeOrder('PK-1', { MUG: 15 });
    const picker = await floor().open();
    const { page } = picker;
    await signIn(page, floor().tenant.slug, 'ines', PIN);
    await page.getByRole('button', { name: 'Start picking' }).click();
    const stop = page.getByRole('article');
    await expect.poll(() => stop.getByRole('heading', { level: 2 }).innerText()).toBe('A-01');
    await expect.poll(() => stop.innerText()).toContain('Take 15 (1 case of 12 + 3) here for tote 1');

    await scan(page, 'A-01');
    await page.getByText('Location A-01 confirmed').waitFor();
    await scan(page, 'CASE-MUG-12');
    await page.getByText('Counted 12 of 15 × Red mug.').waitFor();
    await expect.poll(() => stop.innerText()).toContain('12 of 15');
    await checkScreen(page, 'picker-packaging');

    // A case more than the line still needs is refused, and the count stays.
    await scan(page, 'CASE-MUG-12');
    await page.getByText('Too many: that scan counts 12 (1 case of 12), but 3 are left to take. Scan single units.').waitFor();
    await expect.poll(() => stop.innerText()).toContain('12 of 15');

    await scan(page, '(01)09521234543213(37)3');
    await page.getByText('Picked 15 × Red mug into tote 1.').waitFor();
    await page.getByRole('button', { name: 'Finish wave' }).click();
    await page.getByRole('heading', { name: 'Wave finished' }).waitFor();

    const picked = await floor().orderOf('PK-1');
    expect(picked.status).toBe('PICKED');
    expect(picked.items).toEqual([expect.objectContaining({ productExternalId: 'MUG', quantity: 15 })]);
    expect(picker.errors).toEqual([]);
  });

  it('a count takes a case scan as 12 units and a GS1 count as its units', async () => {
    const plan = warehouse(floor().ctx, floor().tenant);
    expect((await plan.put('/products/MUG/slots', { slots: [{ locationCode: 'A-01', quantity: 25 }] })).status).toBe(200);
    const made = await plan.post('/counts', { locationCodes: ['A-01'] });
    expect(made.status).toBe(201);
    const counter = await floor().signedIn('ines');
    const { page } = counter;
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Count' }).click();
    await page.getByRole('button', { name: 'Count A-01' }).click();
    const card = page.getByRole('article', { name: 'A-01' });
    await scan(page, 'A-01');
    await card.getByRole('status').getByText('Location A-01 confirmed. Scan each unit there.').waitFor();
    await scan(page, 'CASE-MUG-12');
    await card.getByRole('status').getByText('Counted 12 × Red mug.').waitFor();
    await scan(page, '(01)09521234543213(37)3');
    await card.getByRole('status').getByText('Counted 15 × Red mug.').waitFor();
    await card.getByRole('button', { name: 'Finish count' }).click();
    await page.getByRole('status').getByText('Count of A-01 finished: 15 units counted.').waitFor();
    const done = (await plan.get(`/counts/${made.body.data[0]!.id}`)).body.data;
    expect(done.lines.map((line: { productExternalId: string; countedQuantity: number }) => [line.productExternalId, line.countedQuantity])).toEqual([['MUG', 15]]);
    expect(counter.errors).toEqual([]);
  });
});
