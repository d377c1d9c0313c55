import { expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { GS } from '../../src/catalog/gs1';
import { day, LAYOUT } from '../floor/helpers';
import { warehouse } from '../orders/helpers';
import { checkScreen, ConsoleFloor, describeInBrowser, DESKTOP, type FloorSetup, scan, wedge } from './browser';

const PIN = '135790';

/** The GS1 DataMatrix a unit of MILK carries, as a scanner hands it over (`wedge`): (01) GTIN, (17) expiry, (10) lot, GS, (21) serial. */
const dataMatrix = (lot: string, expiresOn: string, serial: string) => `]d2010952123454321317${expiresOn.slice(2).replaceAll('-', '')}10${lot}${GS}21${serial}`;

/*
 * MILK is kept by lot: L-0424 and L-0425 at A-01 expire the same day (in 10 days), L-0501 there in
 * 40 days, and L-0399 at B-02 expired two days ago. An order of 1 takes one of the first two; the
 * picker scans a unit of L-0501 (refused: it expires later), then one of the other lot of the same
 * day (recorded in its place). A case barcode counting 12 units is packaging.test.ts's. YOG is
 * kept at B-02 in 101 lots of one unit, expiring from 100 days on: one more than a page of the
 * supervisor's Lots expiring.
 */
const SOON = day(10);
const YOGURT_LOTS = 101;

const FLOOR: FloorSetup = {
  layout: LAYOUT,
  locations: [
    { code: 'A-01', aisle: 1, position: 1 },
    { code: 'B-02', aisle: 2, position: 2 },
  ],
  products: [
    { externalId: 'MILK', sku: 'SKU-MILK', name: 'Milk 1 l', stock: 13, barcode: '9521234543213', lotTracked: true },
    { externalId: 'YOG', sku: 'SKU-YOG', name: 'Yogurt', stock: YOGURT_LOTS, lotTracked: true },
  ],
  staff: [
    { username: 'ines', role: 'picker' },
    { username: 'pat', role: 'packer' },
    { username: 'sara', role: 'supervisor' },
  ],
  pin: PIN,
};

async function seed(floor: ConsoleFloor): Promise<void> {
  const slots = [
    { locationCode: 'A-01', quantity: 3, lot: 'L-0424', expiresOn: SOON },
    { locationCode: 'A-01', quantity: 3, lot: 'L-0425', expiresOn: SOON },
    { locationCode: 'A-01', quantity: 5, lot: 'L-0501', expiresOn: day(40) },
    { locationCode: 'B-02', quantity: 2, lot: 'L-0399', expiresOn: day(-2) },
  ];
  expect((await warehouse(floor.ctx, floor.tenant).put('/products/MILK/slots', { slots })).status).toBe(200);
  const yogurt = Array.from({ length: YOGURT_LOTS }, (_, index) => ({ locationCode: 'B-02', quantity: 1, lot: `Y-${String(index + 1).padStart(3, '0')}`, expiresOn: day(100 + index) }));
  expect((await warehouse(floor.ctx, floor.tenant).put('/products/YOG/slots', { slots: yogurt })).status).toBe(200);
}

describeInBrowser('console in a real browser: lots and expiry', { floor: FLOOR, seed }, (floor) => {
  it('the stop names the lot; a scanned lot that expires later is refused naming the lot to take, one of the same day is recorded; the packer and the slip list it', async () => {
    await floor().placeOrder('LOT-1', { MILK: 1 });
    const picker = await floor().signedIn('ines');
    const { page } = picker;
    await page.getByRole('button', { name: 'Start picking' }).click();
    const stop = page.getByRole('article');
    await expect.poll(() => stop.getByRole('heading', { level: 2 }).innerText()).toBe('A-01');
    const [wave] = (await warehouse(floor().ctx, floor().tenant).get('/waves?status=PICKING')).body.data;
    const planned = wave!.stops[0]!.lines[0]!.lot!;
    const other = planned === 'L-0424' ? 'L-0425' : 'L-0424';
    await stop.getByText(`Lot ${planned} · expires ${SOON}`).waitFor();
    await checkScreen(page, 'picker-lot');

    await scan(page, 'A-01');
    await page.getByText('Location A-01 confirmed').waitFor();
    // The label's expiry is later than the stop's lot: refused at the scan.
    await wedge(page, dataMatrix('L-0501', day(40), '0001'));
    await page.getByRole('alert').getByText(`Wrong lot: L-0501, expires ${day(40)}, after ${planned}. Take lot ${planned} (expires ${SOON}).`).waitFor();
    await expect.poll(() => stop.innerText()).toContain('0 of 1');
    // A label without expiry: the service finds no lot L-0999 at A-01 and refuses the pick.
    await scan(page, '(01)09521234543213(10)L-0999');
    await page.getByRole('alert').getByText(`Wrong lot: L-0999. Take lot ${planned} (expires ${SOON}).`).waitFor();
    await expect.poll(() => stop.innerText()).toContain('0 of 1');
    expect((await floor().orderOf('LOT-1')).status).toBe('IN_PICKING');
    await checkScreen(page, 'picker-wrong-lot');

    await wedge(page, dataMatrix(other, SOON, '0002'));
    await page.getByText(`Picked 1 × Milk 1 l into tote 1, lot ${other} (expires ${SOON}) in place of ${planned}.`).waitFor();
    await page.getByRole('button', { name: 'Finish wave' }).click();
    await page.getByRole('heading', { name: 'Wave finished' }).waitFor();
    expect((await floor().orderOf('LOT-1')).items[0]!.lots).toEqual([{ lot: other, expiresOn: SOON, quantity: 1 }]);
    expect(picker.errors).toEqual([]);

    const packer = await floor().signedIn('pat', DESKTOP);
    await packer.page.getByLabel('Scan order').fill('N-LOT-1');
    await packer.page.keyboard.press('Enter');
    await packer.page.getByRole('heading', { name: /Order N-LOT-1/ }).waitFor();
    const lots = `1 of lot ${other} (expires ${SOON})`;
    await packer.page.getByRole('checkbox', { name: new RegExp(`Lots: ${lots.replace(/[()]/g, '\\$&')}`) }).waitFor();
    await checkScreen(packer.page, 'packer-lots');
    await packer.page.getByRole('link', { name: 'Print packing slip' }).click();
    await packer.page.getByRole('heading', { name: 'Packing slip: order N-LOT-1' }).waitFor();
    await packer.page.getByRole('cell', { name: lots }).waitFor();
    await checkScreen(packer.page, 'print-packing-slip-lots');
    expect(packer.errors).toEqual([]);
  });

  it('the supervisor lists the lots expiring within the period chosen, soonest first, the expired marked', async () => {
    const supervisor = await floor().signedIn('sara', DESKTOP);
    const { page } = supervisor;
    const panel = page.getByRole('region', { name: 'Lots expiring' });
    const table = panel.getByRole('table', { name: 'Lots expiring' });
    const rows = async (of: Locator) => (await of.getByRole('row').allInnerTexts()).slice(1).map((row) => row.split('\t').map((cell) => cell.trim()));
    await expect.poll(() => rows(table)).toEqual([
      ['MILK (SKU-MILK)', 'L-0399', `${day(-2)} expired`, '2', 'B-02'],
      ['MILK (SKU-MILK)', 'L-0424', SOON, expect.stringMatching(/^[23]$/), 'A-01'],
      ['MILK (SKU-MILK)', 'L-0425', SOON, expect.stringMatching(/^[23]$/), 'A-01'],
    ]);
    await panel.getByLabel('Expiring within').selectOption({ label: '60 days' });
    await expect.poll(async () => (await rows(table)).map((row) => row[1])).toEqual(['L-0399', 'L-0424', 'L-0425', 'L-0501']);
    const showMore = panel.getByRole('button', { name: 'Show more lots' });
    expect(await showMore.count()).toBe(0);

    // A year holds 105 lots: the 100 soonest, then the rest on "Show more lots".
    await panel.getByLabel('Expiring within').selectOption({ label: '365 days' });
    await panel.getByText('The 100 soonest shown').waitFor();
    expect((await rows(table)).map((row) => row[1]).slice(-2)).toEqual(['Y-095', 'Y-096']);
    await showMore.click();
    await panel.getByText('All 105 shown').waitFor();
    expect((await rows(table)).map((row) => row[1]).slice(-6)).toEqual(['Y-096', 'Y-097', 'Y-098', 'Y-099', 'Y-100', 'Y-101']);
    expect(await showMore.count()).toBe(0);
    await panel.getByLabel('Expiring within').selectOption({ label: '7 days' });
    await expect.poll(async () => (await rows(table)).map((row) => row[1])).toEqual(['L-0399']);
    await panel.scrollIntoViewIfNeeded();
    await checkScreen(page, 'supervisor-lots');
    expect(supervisor.errors).toEqual([]);
  });
});
