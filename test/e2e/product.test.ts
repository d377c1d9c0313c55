import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { clearPool, completeWaveOf, LAYOUT } from '../floor/helpers';
import { stockOf, warehouse } from '../orders/helpers';
import { accessibilityProblems, describeInBrowser, DESKTOP, type Device, type FloorSetup, PHONE, SCREENSHOTS, wedge } from './browser';

/*
 * The console's screens as people meet them on a shift: waves told apart by their
 * numbers, feedback where the supervisor is looking, a stock correction by what is printed on the
 * product, words of the floor rather than of the API, a plan a phone can read.
 */

const PIN = '531642';
const PRODUCTS = [
  { externalId: 'MUG', name: 'Blue mug', locationCode: 'A-01', barcode: '4006381333931' },
  { externalId: 'SOCK', name: 'Hiking socks', locationCode: 'B-03' },
  { externalId: 'BOOT', name: 'Trail boot', locationCode: 'D-02' },
  { externalId: 'HAT', name: 'Wool hat' },
];
const STOCK = 100;

/** Whether the element stands wholly inside the page's viewport, where the person looking sees it. */
async function inView(page: Page, element: Locator): Promise<boolean> {
  const box = await element.boundingBox();
  const viewport = page.viewportSize()!;
  return box !== null && box.y >= 0 && box.y + box.height <= viewport.height && box.x >= 0 && box.x + box.width <= viewport.width;
}

const FLOOR: FloorSetup = {
  layout: LAYOUT,
  locations: [
    { code: 'A-01', aisle: 1, position: 1 },
    { code: 'B-03', aisle: 2, position: 3 },
    { code: 'D-02', aisle: 4, position: 2 },
  ],
  products: PRODUCTS.map((product) => ({ sku: `SKU-${product.externalId}`, stock: STOCK, ...product })),
  staff: [
    { username: 'ana', name: 'Ana Alves', role: 'picker' },
    { username: 'ben', name: 'Ben Brook', role: 'picker' },
    { username: 'pat', name: 'Pat Park', role: 'packer' },
    { username: 'sam', name: 'Sam Stone', role: 'supervisor' },
  ],
  pin: PIN,
};

describeInBrowser('console in a real browser: run like a product', { floor: FLOOR }, (floor) => {
  const placeOrder = (externalId: string, items: Record<string, number>) => floor().placeOrder(externalId, items);
  const open = (username: string, viewport = PHONE): Promise<Device> => floor().signedIn(username, viewport);

  it('waves made in the same minute carry their own numbers: on the board, the pick lists, the floor plan, the picker screen and the API', async () => {
    await placeOrder('N-1', { MUG: 1 });
    await placeOrder('N-2', { SOCK: 1 });
    const { page, errors } = await open('sam', DESKTOP);
    const create = page.getByRole('region', { name: 'Create a wave' });
    await create.getByLabel('Max orders').fill('1');
    await create.getByRole('button', { name: 'Create wave' }).click();
    await create.getByRole('status').getByText(/^W-0001 created: 1 order,/).waitFor();
    await create.getByRole('button', { name: 'Create wave' }).click();
    await create.getByRole('status').getByText(/^W-0002 created: 1 order,/).waitFor();

    const waves = page.getByRole('region', { name: 'Waves in progress' });
    await waves.getByRole('heading', { name: 'W-0001 (unassigned)' }).waitFor();
    await waves.getByRole('heading', { name: 'W-0002 (unassigned)' }).waitFor();
    await waves.getByRole('link', { name: 'Print the pick list of W-0002' }).waitFor();
    const routes = page.getByRole('figure').getByRole('listitem');
    await routes.filter({ hasText: /^W-0001 \(unassigned\), optimal/ }).waitFor();
    await routes.filter({ hasText: /^W-0002 \(unassigned\), optimal/ }).waitFor();

    // Assigned, the wave keeps its number and says whose it is.
    await waves.getByLabel('Picker for W-0001').selectOption({ label: 'Ana Alves' });
    await waves.getByRole('button', { name: 'Assign W-0001' }).click();
    await waves.getByRole('status').getByText('W-0001 assigned to Ana Alves.').waitFor();
    await waves.getByRole('heading', { name: 'W-0001 (Ana Alves)' }).waitFor();
    await routes.filter({ hasText: /^W-0001 \(Ana Alves\), optimal/ }).waitFor();

    await waves.getByRole('link', { name: 'Print the pick list of W-0002' }).click();
    await page.getByRole('heading', { name: 'Pick list: W-0002 (unassigned)' }).waitFor();
    expect(errors).toEqual([]);

    // The picker's screen names the wave in hand (assigned to her, it is open when she signs in).
    const ana = await open('ana');
    const picking = ana.page.getByRole('region', { name: 'Picking W-0001' });
    await picking.getByText('Wave W-0001', { exact: true }).waitFor();
    expect(ana.errors).toEqual([]);

    // The warehouse API reads the same numbers.
    const read = (await warehouse(floor().ctx, floor().tenant).get('/waves?status=PICKING')).body.data;
    expect(read.map((wave) => [wave.orders[0]!.externalId, wave.number])).toEqual([
      ['N-1', 1],
      ['N-2', 2],
    ]);
    await clearPool({ tenant: floor().tenant, floor: warehouse(floor().ctx, floor().tenant) });
  });

  it('on a phone, what an action did shows next to its control and is announced; Adjust stock takes a sku or a scanned barcode', async () => {
    const { page, errors } = await open('sam');
    const stock = page.getByRole('region', { name: 'Adjust stock' });
    await stock.getByLabel('Product').fill('SKU-SOCK');
    await stock.getByLabel('Amount').fill('40');
    await stock.getByRole('button', { name: 'Adjust stock' }).click();
    const done = stock.getByRole('status');
    await done.getByText('Hiking socks (SKU-SOCK) now has 40 in stock.').waitFor();
    expect(await inView(page, done), 'the message stands where the supervisor pressed Adjust stock').toBe(true);
    expect(await stockOf(floor().tenant, 'SOCK')).toBe(40);

    // A scanned barcode, wherever the focus is, is the product to adjust.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await wedge(page, '4006381333931');
    await expect.poll(() => stock.getByLabel('Product').inputValue()).toBe('4006381333931');
    await stock.getByRole('radio', { name: 'Add (negative removes)' }).check();
    await stock.getByLabel('Amount').fill('-5');
    await stock.getByRole('button', { name: 'Adjust stock' }).click();
    await done.getByText('Blue mug (SKU-MUG) now has 95 in stock.').waitFor();
    expect(await stockOf(floor().tenant, 'MUG')).toBe(STOCK - 5);
    await stock.screenshot({ path: `${SCREENSHOTS}adjust-stock-phone.png`, animations: 'disabled', caret: 'hide' });

    // A refusal too: next to the control, read out at once.
    await stock.getByLabel('Product').fill('NO-SUCH-THING');
    await stock.getByRole('button', { name: 'Adjust stock' }).click();
    const refused = stock.getByRole('alert');
    await expect.poll(() => refused.innerText()).toMatch(/NO-SUCH-THING/);
    expect(await inView(page, refused)).toBe(true);
    expect(await done.innerText()).toBe('');

    const settings = page.getByRole('region', { name: 'Floor settings' });
    await settings.getByRole('button', { name: 'Save settings' }).click();
    const saved = settings.getByRole('status').getByText('Settings saved: handhelds use them from their next screen.');
    await saved.waitFor();
    expect(await inView(page, saved)).toBe(true);
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("on a phone, the floor plan's labels are at least 12 px tall: a plan wider than the screen scrolls in its own box", async () => {
    const { page, errors } = await open('sam');
    const plan = page.getByRole('img', { name: /Floor plan/ });
    await plan.waitFor();
    const label = plan.getByText('A-01', { exact: true });
    const height = (await label.boundingBox())!.height;
    expect(height, 'a location label on a 360 px screen').toBeGreaterThanOrEqual(12);
    const aisle = plan.getByText('1', { exact: true });
    expect((await aisle.boundingBox())!.height).toBeGreaterThanOrEqual(12);
    // The page itself does not scroll sideways: the plan's own box does, and a keyboard reaches it.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('an unplaced item is taken for its tote, not "here"', async () => {
    await clearPool({ tenant: floor().tenant, floor: warehouse(floor().ctx, floor().tenant) });
    await placeOrder('U-1', { HAT: 1 });
    const { page, errors } = await open('ben');
    await page.getByRole('button', { name: 'Start picking' }).click();
    const stop = page.getByRole('article');
    await stop.getByRole('heading', { name: 'Unplaced items' }).waitFor();
    expect(await stop.innerText()).toContain('Take 1 for tote 1');
    expect(await stop.innerText()).not.toMatch(/\bhere\b/);
    expect(errors).toEqual([]);
  });

  it("the pack station speaks of the order's reference, not of the API's externalId", async () => {
    await placeOrder('P-1', { BOOT: 1 });
    await completeWaveOf(warehouse(floor().ctx, floor().tenant), ['P-1']);
    const { page, errors } = await open('pat');
    await expect.poll(() => page.locator('main').innerText()).not.toMatch(/externalId/i);
    await page.getByLabel('Scan order').fill('P-1');
    await page.keyboard.press('Enter');
    const card = page.getByRole('article', { name: /Order N-P-1/ });
    await card.waitFor();
    expect(await card.innerText()).toContain('Reference P-1');
    expect(await page.locator('main').innerText()).not.toMatch(/externalId/i);
    expect(errors).toEqual([]);
  });
});
