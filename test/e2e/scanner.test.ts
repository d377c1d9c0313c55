import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { LAYOUT } from '../floor/helpers';
import { warehouse } from '../orders/helpers';
import { checkScreen, describeInBrowser, type Device, feedbackOf, type FloorSetup, PHONE, wedge } from './browser';

/*
 * A shift with a keyboard-wedge scanner and gloves: scans typed 5 to 10 ms apart into whatever
 * has focus, tote labels, unit counting, packing by scanning.
 */

const PIN = '135790';
const LOCATIONS = [
  { code: 'A-01', aisle: 1, position: 1 },
  { code: 'B-03', aisle: 2, position: 3 },
  { code: 'D-02', aisle: 4, position: 2 },
];
const PRODUCTS = [
  { externalId: 'MUG', name: 'Blue mug', locationCode: 'A-01', barcode: '4006381333931' },
  { externalId: 'SOCK', name: 'Hiking socks', locationCode: 'B-03', barcode: '5012345678900' },
  { externalId: 'BOOT', name: 'Trail boot', locationCode: 'D-02' },
  { externalId: 'HAT', name: 'Wool hat' },
];
/** What each product's scan is: its barcode, or its sku when it has none. */
const CODE: Record<string, string> = { 'Blue mug': '4006381333931', 'Hiking socks': '5012345678900', 'Trail boot': 'SKU-BOOT', 'Wool hat': 'SKU-HAT' };

const FLOOR: FloorSetup = {
  layout: LAYOUT,
  locations: LOCATIONS,
  products: PRODUCTS.map((product) => ({ sku: `SKU-${product.externalId}`, stock: 100, ...product })),
  staff: (
    [
      ['ana', 'picker'],
      ['ben', 'picker'],
      ['cat', 'picker'],
      ['pat', 'packer'],
      ['sam', 'supervisor'],
    ] as const
  ).map(([username, role]) => ({ username, role, name: username.toUpperCase() })),
  pin: PIN,
};

describeInBrowser('the console with a keyboard-wedge scanner', { timeout: 120_000, floor: FLOOR }, (floor) => {
  const open = (username: string): Promise<Device> => floor().signedIn(username, PHONE);
  const settings = async (change: Record<string, boolean>) => expect((await warehouse(floor().ctx, floor().tenant).put('/settings', change)).status).toBe(200);
  const placeOrder = (externalId: string, items: Record<string, number>) => floor().placeOrder(externalId, items);
  const orderOf = (externalId: string) => floor().orderOf(externalId);
  // The stop's heading: waiting for the stop itself, not the heading shown before the wave arrives.
  const location = async (page: Page) => (await page.getByRole('article').getByRole('heading', { level: 2 }).innerText()).trim();
  const product = async (page: Page) => (await page.locator('.product-name').innerText()).trim();
  const alert = (page: Page) => page.getByRole('alert');
  const blur = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

  it('a scan goes where the screen expects wherever focus is (Quantity, the page, a button), and typing by hand still works', async () => {
    await settings({ toteLabels: false, confirmLocation: true });
    await placeOrder('S-1', { MUG: 3, SOCK: 3 });
    const { page, errors } = await open('ana');
    await page.getByRole('button', { name: 'Start picking' }).click();
    const [first, second] = [await location(page), await product(page)];
    const other = first === 'A-01' ? { location: 'B-03', product: 'Hiking socks' } : { location: 'A-01', product: 'Blue mug' };

    // Focus on Quantity: the location scan confirms the stop, and Quantity keeps its value.
    const quantity = page.getByLabel('Quantity');
    await quantity.click();
    await wedge(page, first);
    await page.getByText(`Location ${first} confirmed. Scan ${second}.`).waitFor();
    expect(await quantity.inputValue()).toBe('0');
    // Still on Quantity: the product scan counts one unit, nothing lands in the field.
    await wedge(page, CODE[second]!);
    await page.getByText('1 of 3', { exact: true }).waitFor();
    expect(await quantity.inputValue()).toBe('1');
    // Focus on the page itself.
    await blur(page);
    await wedge(page, CODE[second]!);
    await page.getByText('2 of 3', { exact: true }).waitFor();
    // Focus on a button: the scan's Enter does not press it.
    await page.getByRole('button', { name: 'Short pick' }).focus();
    await wedge(page, CODE[second]!);
    await page.getByText(`Picked 3 × ${second} into tote 1.`).waitFor();
    expect(await page.getByRole('button', { name: 'Record short pick' }).count()).toBe(0);

    // By hand: the location typed into Scan, then a quantity typed for the whole line.
    expect(await location(page)).toBe(other.location);
    const field = page.getByLabel('Scan', { exact: true });
    await field.click();
    await expect.poll(() => field.evaluate((element) => element === document.activeElement)).toBe(true);
    // Keys 120 ms apart are a person typing, not a scanner: the pace is what is tested, not a wait.
    await page.keyboard.type(other.location, { delay: 120 });
    await page.keyboard.press('Enter');
    await page.getByText(`Location ${other.location} confirmed. Scan ${other.product}.`).waitFor();
    await quantity.click();
    await page.keyboard.type('3', { delay: 120 });
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Every line is recorded' }).waitFor();
    await page.getByRole('button', { name: 'Finish wave' }).click();
    await page.getByRole('heading', { name: 'Wave finished' }).waitFor();

    // Nothing to scan here: a scan with focus on "Start picking" says so and starts nothing.
    await page.getByRole('button', { name: 'Start picking' }).focus();
    await wedge(page, 'A-01');
    await expect.poll(() => alert(page).innerText()).toBe('Scan not needed: A-01. Press Start picking first.');
    expect(await page.getByRole('heading', { name: 'Wave finished' }).count()).toBe(1);
    expect(await orderOf('S-1')).toMatchObject({ status: 'PICKED' });
    expect(errors).toEqual([]);
  });

  it('without confirmLocation, the first scan at a stop is the product', async () => {
    await settings({ toteLabels: false, confirmLocation: false });
    await placeOrder('S-2', { SOCK: 1 });
    const { page, errors } = await open('ben');
    await page.getByRole('button', { name: 'Start picking' }).click();
    await page.getByText('At location', { exact: true }).waitFor();
    await wedge(page, CODE['Hiking socks']!);
    await page.getByText('Picked 1 × Hiking socks into tote 1.').waitFor();
    await page.getByRole('button', { name: 'Finish wave' }).click();
    await page.getByRole('heading', { name: 'Wave finished' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('a whole shift on a phone: label the totes, pick by unit scans with one short, pack by scanning items and a tote label, dispatch', async () => {
    await settings({ toteLabels: true, confirmLocation: true, packOnLastScan: false });
    await placeOrder('W-1', { MUG: 2, SOCK: 1 });
    await placeOrder('W-2', { MUG: 1, BOOT: 2 });
    const picker = await open('ana');
    const { page } = picker;
    await page.getByRole('button', { name: 'Start picking' }).click();
    await page.getByRole('heading', { name: 'Label the totes' }).waitFor();
    await checkScreen(page, 'picker-labels');
    await wedge(page, 'TOTE-A');
    await page.getByText('Label TOTE-A is on tote 1.').waitFor();
    await wedge(page, 'TOTE-A');
    await expect.poll(() => alert(page).innerText()).toMatch(/^Label TOTE-A refused: Label TOTE-A is already on tote 1 of this wave \(order N-W-\d, not packed yet\)/);
    await wedge(page, 'TOTE-B');
    const wave = (await warehouse(floor().ctx, floor().tenant).get('/waves?status=PICKING')).body.data.find((candidate) => candidate.picker?.username === 'ana')!;
    const inTote = (tote: number) => wave.orders.find((o) => o.tote === tote)!;

    let screenshot = false;
    for (let guard = 0; guard < 12 && (await page.getByRole('heading', { name: 'Every line is recorded' }).count()) === 0; guard++) {
      await page.locator('.product-name').waitFor();
      if (await page.getByText('Go to location').count()) {
        const code = await location(page);
        await wedge(page, code);
        await page.getByText(`Location ${code} confirmed`).waitFor();
      }
      const name = await product(page);
      const take = Number(/Take (\d+)/.exec(await page.locator('.quantity-needed').innerText())![1]);
      if (name === 'Trail boot') {
        // One boot counted, then found damaged like the other: a short pick of none.
        await wedge(page, CODE[name]!);
        await page.getByText(`1 of ${take}`, { exact: true }).waitFor();
        if (!screenshot) await checkScreen(page, 'picker-count');
        screenshot = true;
        await page.getByLabel('Quantity').fill('0');
        await page.getByRole('button', { name: 'Short pick' }).click();
        await page.getByRole('radio', { name: 'Damaged' }).check();
        await page.getByRole('button', { name: 'Record short pick' }).click();
        await page.getByText('Short pick recorded: 0 of 2 × Trail boot (damaged).').waitFor();
      } else {
        for (let unit = 1; unit <= take; unit++) {
          await wedge(page, CODE[name]!);
          await page.getByText(unit < take ? `Counted ${unit} of ${take} × ${name}.` : `Picked ${take} × ${name}`).waitFor();
        }
      }
    }
    await page.getByRole('button', { name: 'Finish wave' }).click();
    await page.getByRole('heading', { name: 'Wave finished' }).waitFor();
    expect(picker.errors).toEqual([]);

    const packer = await open('pat');
    const pack = packer.page;
    // The order in tote B, by its label: its tote is shown.
    const b = inTote(2);
    await wedge(pack, 'TOTE-B');
    await pack.getByRole('heading', { name: new RegExp(`Order ${b.orderNumber}`) }).waitFor();
    await pack.getByText('Tote 2 · label TOTE-B').waitFor();
    // An item of another order is refused, with a buzz, and the order stays open.
    const foreign = b.externalId === 'W-2' ? CODE['Hiking socks']! : CODE['Trail boot']!;
    await wedge(pack, foreign);
    await expect.poll(() => alert(pack).innerText()).toBe(`${foreign} is not in order ${b.orderNumber}, nor an order or a tote label. Keep it out of the box.`);
    expect((await feedbackOf(pack)).vibrations).toEqual([[200, 100, 200]]);
    await pack.getByRole('heading', { name: new RegExp(`Order ${b.orderNumber}`) }).waitFor();
    expect(await pack.getByLabel('Scan order').inputValue()).toBe('');

    // A line picked short to none needs nothing: only the others are scanned before Mark packed.
    const nothingToPack = async () => (await pack.getByText('none picked: nothing to pack').count()) > 0;
    const zeroLines = [await nothingToPack()];
    const items = (await orderOf(b.externalId)).items as { productExternalId: string; quantity: number }[];
    const names: Record<string, string> = { MUG: 'Blue mug', SOCK: 'Hiking socks', BOOT: 'Trail boot' };
    for (const line of items) for (let unit = 0; unit < line.quantity; unit++) await wedge(pack, CODE[names[line.productExternalId]!]!);
    await pack.getByText(/Every item is in the box\./).waitFor();
    expect(await pack.getByRole('button', { name: 'Mark packed' }).isEnabled()).toBe(true);
    await checkScreen(pack, 'packer-scan');
    await pack.getByRole('button', { name: 'Mark packed' }).click();
    await pack.getByText(`Order ${b.orderNumber} packed.`).waitFor();
    await expect.poll(() => pack.evaluate(() => document.activeElement?.id)).toBe('scan-order');

    // Typing the carrier by hand, a stray scan does not land in the field, nor take focus from it.
    await pack.getByLabel('Carrier').click();
    await pack.keyboard.type('DHL', { delay: 120 }); // typed by hand: a person's pace, not a scanner's
    await wedge(pack, 'NO-SUCH-CODE');
    await expect.poll(() => alert(pack).innerText()).toBe('No order, tote label or item NO-SUCH-CODE.');
    expect(await pack.getByLabel('Carrier').inputValue()).toBe('DHL');
    // Focus stays where the packer put it: the next keys still go into Carrier.
    expect(await pack.evaluate(() => document.activeElement?.id)).toBe('carrier');
    await pack.getByLabel('Tracking number').fill('JD0001');
    await pack.getByRole('button', { name: 'Dispatch' }).click();
    await pack.getByText('Dispatched with DHL, tracking number JD0001.').waitFor();
    expect(await orderOf(b.externalId)).toMatchObject({ status: 'DISPATCHED', carrier: 'DHL', trackingNumber: 'JD0001' });

    // With packOnLastScan, the order in tote A packs on its last item's scan; its label is free again.
    await settings({ packOnLastScan: true });
    // A scan made while the page is still loading (its session not yet answered) is not lost.
    let answerSession!: () => void;
    const sessionHeld = new Promise<void>((resolve) => (answerSession = resolve));
    await pack.route('**/console/api/session', async (route) => {
      await sessionHeld;
      await route.continue();
    });
    await pack.reload();
    await pack.getByText('Loading…').waitFor();
    const a = inTote(1);
    await wedge(pack, 'TOTE-A');
    const answered = pack.waitForResponse('**/console/api/session');
    answerSession();
    await answered;
    await pack.unroute('**/console/api/session');
    await pack.getByText('Tote 1 · label TOTE-A').waitFor();
    zeroLines.push(await nothingToPack());
    expect(zeroLines.filter(Boolean), 'the order with the boots shows its empty line').toHaveLength(1);
    for (const line of (await orderOf(a.externalId)).items as { productExternalId: string; quantity: number }[]) {
      for (let unit = 0; unit < line.quantity; unit++) await wedge(pack, CODE[names[line.productExternalId]!]!);
    }
    await pack.getByText(`Order ${a.orderNumber} packed.`).waitFor();
    expect((await orderOf(a.externalId)).status).toBe('PACKED');
    await wedge(pack, 'TOTE-A');
    await expect.poll(() => alert(pack).innerText()).toBe('No order, tote label or item TOTE-A.');
    expect(packer.errors).toEqual([]);
  });

  it('a supervisor on a handheld: settings, wave cards with their orders that fit 360 px, assign with a picker taking it, release confirmed, errors kept until dismissed', async () => {
    await settings({ toteLabels: false, confirmLocation: true, packOnLastScan: false });
    await placeOrder('V-1', { HAT: 1 });
    const { page, errors } = await open('sam');
    await page.getByRole('heading', { name: 'Waves in progress' }).waitFor();

    await page.getByRole('checkbox', { name: "Mark an order packed on its last item's scan" }).check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('region', { name: 'Floor settings' }).getByRole('status').getByText('Settings saved').waitFor();
    expect((await warehouse(floor().ctx, floor().tenant).get('/settings')).body.data).toEqual({ toteLabels: false, confirmLocation: true, packOnLastScan: true, pickFromReserve: false, minShelfLifeDays: 0 });

    await page.getByLabel('Max orders').fill('1');
    await page.getByRole('button', { name: 'Create wave' }).click();
    const created = /^(W-\d{4}) created/.exec(await page.getByText(/^W-\d{4} created/).innerText())![1]!;
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: new RegExp(`^${created} `) }) });
    await card.getByText('1 order: N-V-1').waitFor();

    // Nothing sticks out of a 360 px screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    for (const button of await page.getByRole('button').all()) {
      const box = await button.boundingBox();
      if (box) expect(box.x + box.width, await button.innerText()).toBeLessThanOrEqual(PHONE.width);
    }

    // Release asks first; Cancel keeps the wave.
    await card.getByRole('button', { name: `Release ${created}` }).click();
    await card.getByRole('button', { name: 'Cancel' }).click();
    expect((await orderOf('V-1')).status).toBe('IN_PICKING');

    // Given to Cat: her Start picking opens it.
    await card.getByLabel(`Picker for ${created}`).selectOption({ label: 'CAT' });
    await card.getByRole('button', { name: `Assign ${created}` }).click();
    await page.getByText(`${created} assigned to CAT.`).waitFor();
    await card.getByRole('heading', { name: `${created} (CAT)` }).waitFor();
    const cat = await open('cat');
    await cat.page.getByRole('heading', { name: 'Unplaced items' }).waitFor();
    await cat.page.getByText('After the route', { exact: true }).waitFor();
    expect(cat.errors).toEqual([]);

    // An error stays on screen, by its control, through the board's redraws, until dismissed.
    // The board redraws after the refusal: it shows then the order placed before it.
    const pending = page.getByRole('region', { name: 'Orders by status' }).locator('.status-PENDING dd');
    const pendingBefore = Number(await pending.innerText());
    await placeOrder('V-2', { HAT: 1 });
    const stock = page.getByRole('region', { name: 'Adjust stock' });
    await stock.getByLabel('Product', { exact: true }).fill('NOPE');
    await stock.getByLabel('Amount').fill('5');
    await stock.getByRole('button', { name: 'Adjust stock' }).click();
    const refusal = stock.getByRole('alert').getByText('No product has the reference, sku or barcode NOPE');
    await refusal.waitFor();
    await expect.poll(() => pending.innerText(), { timeout: 10_000 }).toBe(String(pendingBefore + 1));
    expect(await refusal.isVisible()).toBe(true);
    expect((await floor().tenant.api.post('/orders/V-2/cancel')).status).toBe(200);
    await stock.getByRole('button', { name: 'Dismiss' }).click();
    expect(await refusal.count()).toBe(0);

    await card.getByRole('button', { name: `Release ${created}` }).click();
    await card.getByRole('button', { name: 'Yes, release' }).click();
    await page.getByText(`${created} released`).waitFor();
    expect((await orderOf('V-1')).status).toBe('PENDING');
    expect((await floor().tenant.api.post('/orders/V-1/cancel')).status).toBe(200);
    expect(errors).toEqual([]);
  });

  it('small things: done totes look done, 48 px targets, the offline banner counts picks, picks of a wave released elsewhere are dropped, one tab per device', async () => {
    await settings({ toteLabels: false, confirmLocation: false, packOnLastScan: false });
    await placeOrder('X-1', { MUG: 1 });
    await placeOrder('X-2', { MUG: 1 });
    const { page, context, errors } = await open('ben');
    await page.getByRole('button', { name: 'Start picking' }).click();
    await page.getByText('Tote 1: 1', { exact: true }).waitFor();
    const everything = page.getByText(/^Everything at this stop/);
    expect((await everything.boundingBox())!.height).toBeGreaterThanOrEqual(48);
    await wedge(page, CODE['Blue mug']!);
    await page.getByText('Tote 1: 1 ✓ done').waitFor();
    expect(await page.getByText('Tote 1: 1 ✓ done').evaluate((chip) => getComputedStyle(chip).textDecorationLine)).toBe('line-through');

    // Offline: the banner at the top counts what waits on the device.
    await context.setOffline(true);
    await wedge(page, CODE['Blue mug']!);
    const banner = page.getByText('Offline: 1 pick not sent yet');
    await banner.waitFor();
    expect((await banner.boundingBox())!.y).toBeLessThan((await page.getByRole('heading', { level: 2 }).boundingBox())!.y);

    // The wave is released at the desk meanwhile: back online, the pick kept for it is dropped, and said so.
    const wave = (await warehouse(floor().ctx, floor().tenant).get('/waves?status=PICKING')).body.data.find((candidate) => candidate.picker?.username === 'ben')!;
    expect((await warehouse(floor().ctx, floor().tenant).post(`/waves/${wave.id}/release`)).status).toBe(200);
    await context.setOffline(false);
    await page.getByText(/not recorded|were dropped/).first().waitFor();
    await page.getByRole('button', { name: 'Start picking' }).waitFor();
    const kept = await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('pickport.pending-picks')));
    expect(kept).toEqual([]);
    for (const externalId of ['X-1', 'X-2']) expect((await floor().tenant.api.post(`/orders/${externalId}/cancel`)).status).toBe(200);

    // A second tab on the same device says so, and takes over once the first is closed.
    const second = await context.newPage();
    await second.goto('/console');
    await second.getByText('The console is already open in another tab on this device.').waitFor();
    await page.close();
    await second.getByRole('button', { name: 'Start picking' }).waitFor();
    expect(errors).toEqual([]);
  });

  it("prints a wave's pick list (stops in walking order, totes, barcodes as text) and a packing slip, on A4 or a 4×6 in label", async () => {
    await settings({ toteLabels: false, confirmLocation: true, packOnLastScan: false });
    await placeOrder('P-1', { MUG: 1, SOCK: 2 });
    await placeOrder('P-2', { BOOT: 1, HAT: 1 });
    const { page, errors } = await open('sam');
    await page.getByLabel('Max orders').fill('2');
    await page.getByRole('button', { name: 'Create wave' }).click();
    const created = /^(W-\d{4}) created/.exec(await page.getByText(/^W-\d{4} created/).innerText())![1]!;
    await page.getByRole('link', { name: `Print the pick list of ${created}` }).click();
    await page.getByRole('heading', { name: `Pick list: ${created} (unassigned)` }).waitFor();
    const wave = (await warehouse(floor().ctx, floor().tenant).get('/waves?status=PICKING')).body.data.find((candidate) => candidate.number === Number(created.slice(2)))!;
    const table = page.locator('.pick-table');
    const locations = (await table.locator('tbody tr td:nth-child(2)').allInnerTexts()).filter(Boolean);
    expect(locations).toEqual([...wave.stops.map((stop) => stop.locationCode), 'Unplaced']);
    await table.getByText('4006381333931').waitFor();
    expect(await page.getByRole('cell', { name: 'N-P-2' }).count()).toBe(1);
    await checkScreen(page, 'print-pick-list');

    // On paper: no bar, no buttons; A4, or 4×6 in when chosen.
    const mediaBox = async () => {
      const pdf = (await page.pdf({ preferCSSPageSize: true })).toString('latin1');
      const [, width, height] = /MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/.exec(pdf)!;
      return [Math.round(Number(width)), Math.round(Number(height))];
    };
    await page.emulateMedia({ media: 'print' });
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Print' }).isVisible()).toBe(false);
    await page.emulateMedia({ media: 'screen' });
    expect(await mediaBox()).toEqual([595, 842]);
    await page.getByLabel('Paper').selectOption({ label: '4×6 in' });
    await expect.poll(mediaBox).toEqual([288, 432]);
    await page.getByRole('button', { name: 'Back' }).click();
    await page.getByRole('heading', { name: 'Waves in progress' }).waitFor();
    expect((await warehouse(floor().ctx, floor().tenant).post(`/waves/${wave.id}/release`)).status).toBe(200);

    const packer = await open('pat');
    await wedge(packer.page, 'N-P-1');
    await packer.page.getByRole('link', { name: 'Print packing slip' }).click();
    await packer.page.getByRole('heading', { name: 'Packing slip: order N-P-1' }).waitFor();
    await packer.page.getByText('5012345678900').waitFor();
    await checkScreen(packer.page, 'print-packing-slip');
    expect(errors).toEqual([]);
    expect(packer.errors).toEqual([]);
  });
});
