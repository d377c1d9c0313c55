import pino from 'pino';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/worker';
import { LAYOUT } from '../floor/helpers';
import { waitFor } from '../helpers/wait';
import { item, order, stockOf, warehouse } from '../orders/helpers';
import { Receiver } from '../webhooks/receiver';
import { checkScreen, describeInBrowser, DESKTOP, type Device, feedbackOf, type FloorSetup, PHONE, scan, signIn, submitSignIn } from './browser';

const PIN = '246810';
const SECRET = 'whsec_console_e2e_0123456789abcdef';

/** Two blocks: C-08 stands behind a middle cross aisle. */
const TWO_BLOCKS = { ...LAYOUT, crossAisles: [{ afterPosition: 5, width: 2 }] };
const LOCATIONS = [
  { code: 'A-01', aisle: 1, position: 1 },
  { code: 'A-05', aisle: 1, position: 5 },
  { code: 'B-03', aisle: 2, position: 3 },
  { code: 'C-08', aisle: 3, position: 8 },
  { code: 'D-02', aisle: 4, position: 2 },
];
const PRODUCTS = [
  { externalId: 'MUG', name: 'Blue mug', locationCode: 'A-01', barcode: '4006381333931' },
  { externalId: 'HAT', name: 'Wool hat', locationCode: 'A-05' },
  { externalId: 'SOCK', name: 'Hiking socks', locationCode: 'B-03', barcode: '5012345678900' },
  { externalId: 'COAT', name: 'Rain coat', locationCode: 'C-08' },
  { externalId: 'BOOT', name: 'Trail boot', locationCode: 'D-02' },
];
const STOCK = 100;

const FLOOR: FloorSetup = {
  layout: TWO_BLOCKS,
  locations: LOCATIONS,
  products: PRODUCTS.map((product) => ({ sku: `SKU-${product.externalId}`, stock: STOCK, ...product })),
  staff: [
    { username: 'ana', name: 'Ana Alves', role: 'picker' },
    { username: 'ben', name: 'Ben Brook', role: 'picker' },
    { username: 'pat', name: 'Pat Park', role: 'packer' },
    { username: 'sam', name: 'Sam Stone', role: 'supervisor' },
  ],
  pin: PIN,
};

describeInBrowser('console in a real browser (issue 14)', { floor: FLOOR }, (floor) => {
  let worker: DeliveryWorker;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    worker = await startDeliveryWorker({ database: floor().ctx.database, config: floor().ctx.config, log: pino({ level: 'silent' }), pollIntervalMs: 100 });
    const hook = await floor().tenant.api.post('/webhooks', { url: receiver.url, events: ['order.status_changed', 'order.items_adjusted', 'product.stock_updated'], secret: SECRET });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
  });

  const open = (viewport = PHONE): Promise<Device> => floor().open(viewport);

  const placeOrder = async (externalId: string, items: Record<string, number>) => {
    const response = await floor().tenant.api.post('/orders', order(externalId, Object.entries(items).map(([id, quantity]) => item(id, quantity))));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
  };
  const orderOf = async (externalId: string) => (await floor().tenant.api.get(`/orders/${externalId}`)).body.data;
  const statusChanges = (externalId: string) =>
    receiver.requests.filter((r) => r.body.event === 'order.status_changed' && r.body.data.externalId === externalId).map((r) => r.body.data);

  /** The stop the picker's screen shows: its location (the level-2 heading) and the product line. */
  async function shownStop(page: Page) {
    const stop = page.getByRole('article');
    await stop.waitFor();
    const text = await stop.innerText();
    return {
      location: (await stop.getByRole('heading', { level: 2 }).innerText()).trim(),
      sku: /SKU (\S+)/.exec(text)?.[1] ?? '',
      confirmed: !/go to location/i.test(text),
      allRecorded: text.includes('Every line is recorded'),
    };
  }

  /** Confirms the shown stop's location if needed, then records its shown line by scanning each unit. */
  async function pickShownLine(page: Page) {
    const stop = await shownStop(page);
    if (!stop.confirmed) {
      await scan(page, stop.location);
      await page.getByText(`Location ${stop.location} confirmed`).waitFor();
    }
    const take = Number(/Take (\d+)/.exec(await page.getByRole('article').innerText())?.[1]);
    for (let unit = 1; unit <= take; unit++) {
      await scan(page, stop.sku);
      await page.getByText(unit < take ? `Counted ${unit} of ${take} ` : `Picked ${take} × `).waitFor();
    }
    return stop;
  }

  let ana: Device;
  it('a picker signs in, starts a wave of 3 orders, scans every stop (a wrong scan, a short pick) and finishes: orders PICKED, stock dropped, webhooks sent', async () => {
    await placeOrder('O-1', { MUG: 2, SOCK: 1 });
    await placeOrder('O-2', { HAT: 1, COAT: 2 });
    await placeOrder('O-3', { MUG: 1, BOOT: 3 });

    ana = await open();
    const { page } = ana;
    await checkScreen(page, 'sign-in');
    await signIn(page, floor().tenant.slug, 'ana', PIN);
    await checkScreen(page, 'picker-start');
    await page.getByRole('button', { name: 'Start picking' }).click();
    await page.getByText('Stops done: 0 of 5').waitFor();
    const wave = (await warehouse(floor().ctx, floor().tenant).get('/waves?status=PICKING')).body.data[0]!;
    expect(wave.orders.map((o) => o.externalId).sort()).toEqual(['O-1', 'O-2', 'O-3']);

    // Big touch targets for gloved hands.
    for (const control of [page.getByLabel('Scan', { exact: true }), page.getByLabel('Quantity'), page.getByRole('button', { name: 'Short pick' })]) {
      expect((await control.boundingBox())?.height).toBeGreaterThanOrEqual(48);
    }

    // A wrong scan says what was expected, buzzes low twice and vibrates, and changes nothing.
    const first = await shownStop(page);
    await scan(page, 'Z-99');
    await expect.poll(() => page.getByRole('alert').innerText()).toBe(`Wrong scan: Z-99. Expected location ${first.location}.`);
    expect(await shownStop(page)).toEqual(first);
    expect(await feedbackOf(page)).toEqual({ vibrations: [[200, 100, 200]], tones: [180, 180] });
    await checkScreen(page, 'picker-stop');
    await scan(page, first.location);
    await page.getByText(`Location ${first.location} confirmed`).waitFor();
    expect(await feedbackOf(page), 'an accepted scan beeps high, without vibrating').toEqual({ vibrations: [[200, 100, 200]], tones: [180, 180, 1320] });

    let shortPicked = false;
    for (let guard = 0; guard < 20 && !(await shownStop(page)).allRecorded; guard++) {
      const stop = await shownStop(page);
      if (stop.sku === 'SKU-BOOT') {
        // Only 1 of 3 boots on the shelf: a short pick with its reason.
        if (!stop.confirmed) await scan(page, stop.location);
        await page.getByLabel('Quantity').fill('1');
        await page.getByRole('button', { name: 'Short pick' }).click();
        await page.getByRole('radio', { name: 'Damaged' }).check();
        await page.getByRole('button', { name: 'Record short pick' }).click();
        await page.getByText('Short pick recorded: 1 of 3 × Trail boot (damaged).').waitFor();
        shortPicked = true;
      } else {
        await pickShownLine(page);
      }
    }
    expect(shortPicked).toBe(true);
    await page.getByText('Stops done: 5 of 5').waitFor();
    await page.getByRole('button', { name: 'Finish wave' }).click();
    await page.getByRole('heading', { name: 'Wave finished' }).waitFor();

    for (const externalId of ['O-1', 'O-2', 'O-3']) expect((await orderOf(externalId)).status).toBe('PICKED');
    expect((await orderOf('O-3')).items).toEqual([item('MUG', 1), item('BOOT', 1)].map((line) => expect.objectContaining(line)));
    expect(await stockOf(floor().tenant, 'MUG')).toBe(STOCK - 3);
    expect(await stockOf(floor().tenant, 'BOOT')).toBe(STOCK - 1);
    expect(await stockOf(floor().tenant, 'COAT')).toBe(STOCK - 2);
    for (const externalId of ['O-1', 'O-2', 'O-3']) {
      await waitFor(`${externalId} PICKED at the receiver`, () => statusChanges(externalId).some((data) => data.status === 'PICKED'));
    }
    await waitFor('the short pick at the receiver', () => receiver.requests.some((r) => r.body.event === 'order.items_adjusted' && r.body.data.externalId === 'O-3'));
    const boots = await waitFor('the boots taken at the receiver', () =>
      receiver.requests.find((r) => r.body.event === 'product.stock_updated' && r.body.data.sku === 'SKU-BOOT'),
    );
    expect(boots.body.data).toMatchObject({ previousStock: STOCK, newStock: STOCK - 1, reason: 'ORDER_PICKED' });
    expect(ana.errors).toEqual([]);
  });

  let ben: Device;
  it('a reload mid-wave resumes at the same stop; a pick made offline is kept and arrives once when the network returns', async () => {
    await placeOrder('O-4', { SOCK: 2, COAT: 1 });
    await placeOrder('O-5', { HAT: 2, BOOT: 1 });
    ben = await open();
    const { page, context } = ben;
    await signIn(page, floor().tenant.slug, 'ben', PIN);
    await page.getByRole('button', { name: 'Start picking' }).click();
    await pickShownLine(page);
    const before = await shownStop(page);

    await page.reload();
    expect(await shownStop(page)).toEqual(before);
    await page.getByText('Stops done: 1 of 4').waitFor();

    const sent: string[] = [];
    page.on('requestfinished', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/console/api/picking/wave/picks')) sent.push(request.postData() ?? '');
    });
    await context.setOffline(true);
    const offline = await pickShownLine(page);
    await page.getByText('1 pick not sent yet').waitFor();
    expect(sent).toEqual([]);

    await context.setOffline(false);
    await waitFor('the queued pick to be sent', async () => !(await page.getByText('not sent yet').isVisible()));
    const waves = (await warehouse(floor().ctx, floor().tenant).get('/waves?status=PICKING')).body.data;
    const lines = waves.flatMap((wave) => wave.stops.flatMap((stop) => stop.lines));
    const line = lines.find((candidate) => candidate.productSku === offline.sku)!;
    expect(line.pickedQuantity).toBe(line.quantity);
    // The pick names its stop: the part of the line recorded there.
    expect(sent).toEqual([JSON.stringify({ orderExternalId: line.orderExternalId, productExternalId: line.productExternalId, quantity: line.quantity, locationCode: offline.location })]);
    const stored = await page.evaluate(() => Object.keys((globalThis as unknown as { localStorage: Record<string, string> }).localStorage));
    expect(stored.filter((key) => key.startsWith('pickport.pending-picks'))).toEqual([]);
    await page.getByText('Stops done: 2 of 4').waitFor();
    expect(ben.errors).toEqual([]);
  });

  it('a packer scans an order, checks its items, marks it packed and dispatches it with carrier and tracking number', async () => {
    const { page, errors } = await open(DESKTOP);
    await signIn(page, floor().tenant.slug, 'pat', PIN);
    await page.getByLabel('Scan order').fill('N-O-1');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /Order N-O-1/ }).waitFor();
    await checkScreen(page, 'packer');
    for (const box of await page.getByRole('checkbox').all()) await box.check();
    await page.getByRole('button', { name: 'Mark packed' }).click();
    await page.getByLabel('Carrier').fill('DHL Express');
    await page.getByLabel('Tracking number').fill('JD014600003828');
    await page.getByRole('button', { name: 'Dispatch' }).click();
    await page.getByText('Dispatched with DHL Express, tracking number JD014600003828.').waitFor();

    expect(await orderOf('O-1')).toMatchObject({ status: 'DISPATCHED', carrier: 'DHL Express', trackingNumber: 'JD014600003828' });
    const dispatched = await waitFor('DISPATCHED at the receiver', () => statusChanges('O-1').find((data) => data.status === 'DISPATCHED'));
    expect(dispatched).toMatchObject({ carrier: 'DHL Express', trackingNumber: 'JD014600003828' });
    expect(errors).toEqual([]);
  });

  it("a supervisor sees the board and the plan, creates and releases a wave and adjusts a product's stock", async () => {
    await placeOrder('O-6', { MUG: 1 });
    const { page, errors } = await open(DESKTOP);
    await signIn(page, floor().tenant.slug, 'sam', PIN);
    await page.getByRole('heading', { name: 'Waves in progress' }).waitFor();
    await page.getByRole('heading', { name: /^W-\d{4} \(Ben Brook\)$/ }).waitFor();
    await page.getByRole('img', { name: /Floor plan/ }).waitFor();
    await page.getByText(/W-\d{4} \(Ben Brook\).*depot →.*\(done\).*→ depot/).waitFor();
    // The middle cross aisle, in the drawing's description and in its text version.
    await page.getByRole('img', { name: /in 2 blocks.*Cross aisle after position 5, 2 wide\./ }).waitFor();
    expect(await page.getByRole('figure').innerText()).toContain('Cross aisle after position 5, 2 wide.');
    // The plan's next carts: O-6 is PENDING, so one of them carries it, with its units and walk.
    const nextCarts = page.getByRole('table', { name: 'Next carts' });
    const cartOfO6 = nextCarts.getByRole('row').filter({ hasText: 'N-O-6' });
    await cartOfO6.waitFor();
    expect(await cartOfO6.getByRole('cell').allInnerTexts()).toEqual([expect.stringContaining('N-O-6'), expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+(\.\d)?$/)]);
    // The greedy carts' walk only for a plan made for this very pool (not one kept as carts left it).
    await page.getByText(/^Walk of the whole plan: [\d.]+( \(carts made one at a time: [\d.]+\))?\.( Urgent and sooner-due orders first cost [\d.]+ of it\.)?$/).waitFor();
    await checkScreen(page, 'supervisor');

    await page.getByLabel('Max orders').fill('1');
    await page.getByRole('button', { name: 'Create wave' }).click();
    const created = page.getByRole('region', { name: 'Create a wave' }).getByRole('status');
    await created.getByText(/^W-\d{4} created: 1 order,/).waitFor();
    const number = /^(W-\d{4})/.exec(await created.innerText())![1]!;
    expect((await orderOf('O-6')).status).toBe('IN_PICKING');
    // Taken, it leaves the plan at the board's next redraw.
    await cartOfO6.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: `Release ${number}` }).click();
    await page.getByRole('button', { name: 'Yes, release' }).click();
    await page.getByRole('region', { name: 'Waves in progress' }).getByRole('status').getByText(`${number} released: its unpicked orders are PENDING again.`).waitFor();
    expect((await orderOf('O-6')).status).toBe('PENDING');

    await page.getByLabel('Product', { exact: true }).fill('MUG');
    await page.getByLabel('Amount').fill('50');
    await page.getByRole('button', { name: 'Adjust stock' }).click();
    await page.getByText('Blue mug (SKU-MUG) now has 50 in stock.').waitFor();
    expect(await stockOf(floor().tenant, 'MUG')).toBe(50);
    expect(errors).toEqual([]);
  });

  it("a picker's session cannot call a supervisor route, and a disabled user is signed out", async () => {
    const { page } = ana;
    const status = (path: string, method = 'GET') =>
      page.evaluate(async ([url, verb]) => (await fetch(url as string, { method: verb as string, headers: { 'content-type': 'application/json' }, body: verb === 'POST' ? '{}' : null })).status, [path, method]);
    expect(await status('/console/api/board')).toBe(403);
    expect(await status('/console/api/waves', 'POST')).toBe(403);

    // Ana has no wave in hand: her next request after being disabled is refused and the screen signs her out.
    expect((await floor().ctx.admin('POST', `/api/v1/admin/users/${floor().users.ana}/disable`)).status).toBe(200);
    await page.getByRole('button', { name: 'Start picking' }).click();
    await page.getByText('Your session has ended. Sign in again.').waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await status('/console/api/session')).toBe(401);

    // Ben is mid-wave: a reload finds the session gone.
    expect((await floor().ctx.admin('POST', `/api/v1/admin/users/${floor().users.ben}/disable`)).status).toBe(200);
    await ben.page.reload();
    await ben.page.getByRole('button', { name: 'Sign in' }).waitFor();
    await submitSignIn(ben.page, floor().tenant.slug, 'ben', PIN);
    await ben.page.getByText('Warehouse, user or PIN not recognised.').waitFor();
  });
});
