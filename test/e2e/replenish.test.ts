import { expect, it } from 'vitest';
import { LAYOUT } from '../floor/helpers';
import { warehouse } from '../orders/helpers';
import { checkScreen, ConsoleFloor, describeInBrowser, DESKTOP, type FloorSetup, scan, wedge } from './browser';

const PIN = '246810';

/*
 * Replenishment on the floor: JAR's pick face A-02 holds 1 (min 2, max 6) and its reserve D-10
 * holds 20, so a top-up of 5 is open; LID's face B-03 is at its min with no reserve at all. The
 * supervisor sees both on the board; a replenisher (a picker) takes JAR's task, scans the reserve,
 * the units and the face, and the units move.
 */
const FLOOR: FloorSetup = {
  layout: LAYOUT,
  locations: [
    { code: 'A-02', aisle: 1, position: 2 },
    { code: 'B-03', aisle: 2, position: 3 },
    { code: 'D-10', aisle: 4, position: 10 },
  ],
  products: [
    { externalId: 'JAR', sku: 'SKU-JAR', name: 'Glass jar', barcode: '4006381333931', stock: 21 },
    { externalId: 'LID', sku: 'SKU-LID', name: 'Jar lid', stock: 0 },
  ],
  staff: [
    { username: 'rae', role: 'picker', name: 'Rae Reyes' },
    { username: 'sid', role: 'supervisor', name: 'Sid Shah' },
  ],
  pin: PIN,
};

async function seed(floor: ConsoleFloor): Promise<void> {
  const api = warehouse(floor.ctx, floor.tenant);
  const jar = [
    { locationCode: 'A-02', quantity: 1, min: 2, max: 6 },
    { locationCode: 'D-10', quantity: 20, role: 'reserve' },
  ];
  expect((await api.put('/products/JAR/slots', { slots: jar })).status).toBe(200);
  expect((await api.put('/products/LID/slots', { slots: [{ locationCode: 'B-03', quantity: 0, min: 0, max: 10 }] })).status).toBe(200);
}

describeInBrowser('console in a real browser: replenishment', { timeout: 120_000, floor: FLOOR, seed }, (floor) => {
  const api = () => warehouse(floor().ctx, floor().tenant);

  it("shows the supervisor the open task and the faces at their min, and saves 'pick from reserve'", async () => {
    const { page, errors } = await floor().signedIn('sid', DESKTOP);
    const tasks = page.getByRole('table', { name: 'Replenishment' });
    await tasks.waitFor();
    expect(await tasks.getByRole('row', { name: /JAR/ }).innerText()).toMatch(/JAR \(SKU-JAR\)\s+D-10 → A-02\s+5\s+top-up: the face is at its min\s+nobody yet/);
    const faces = page.getByRole('table', { name: 'Pick faces at or below their min' });
    expect(await faces.getByRole('row', { name: /LID/ }).innerText()).toMatch(/LID \(SKU-LID\)\s+B-03\s+0\s+0 \/ 10\s+none open/);
    expect(await faces.getByRole('row', { name: /JAR/ }).innerText()).toMatch(/JAR \(SKU-JAR\)\s+A-02\s+1\s+2 \/ 6\s+open/);

    const settings = page.getByRole('region', { name: 'Floor settings' });
    const fromReserve = settings.getByRole('checkbox', { name: 'Pick from reserve when the pick faces run short' });
    expect(await fromReserve.isChecked()).toBe(false);
    await fromReserve.check();
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await settings.getByRole('status').getByText('Settings saved').waitFor();
    expect((await api().get('/settings')).body.data.pickFromReserve).toBe(true);
    await tasks.scrollIntoViewIfNeeded();
    await checkScreen(page, 'supervisor-replenishment');
    expect(errors).toEqual([]);
  });

  it('a replenisher takes the first task, scans the reserve, the units and the face, and the units move', async () => {
    const { page, errors } = await floor().signedIn('rae');
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Replenish' }).click();
    const list = page.getByRole('region', { name: 'Tasks in walking order' });
    const first = list.getByRole('listitem').first();
    await first.waitFor();
    expect(await first.innerText()).toMatch(/Glass jar\s+SKU SKU-JAR · barcode 4006381333931\s+From D-10 to A-02: 5 units\s+Why: top-up: the face is at its min/);
    await checkScreen(page, 'replenish-list');

    await list.getByRole('button', { name: 'Take Glass jar, D-10 to A-02' }).click();
    const card = page.getByRole('article');
    await expect.poll(() => card.getByRole('heading', { level: 2 }).innerText()).toBe('D-10');
    expect((await api().get('/replenishments?status=IN_PROGRESS')).body.data.map((task) => task.doneBy)).toEqual(['rae']);

    // The face first is a wrong scan: the reserve comes first.
    await scan(page, 'A-02');
    await card.getByRole('alert').getByText('Wrong scan: A-02. Expected reserve location D-10.').waitFor();
    await scan(page, 'D-10');
    await card.getByRole('status').getByText('Location D-10 confirmed').waitFor();
    await scan(page, '4006381333931');
    await scan(page, 'SKU-JAR');
    await expect.poll(() => card.innerText()).toContain('2 of 5');
    await expect.poll(() => card.getByRole('heading', { level: 2 }).innerText()).toBe('A-02');
    await checkScreen(page, 'replenish-task');
    // A full case: the count typed at once.
    await card.getByLabel('Quantity').fill('5');
    await card.getByLabel('Quantity').press('Enter');
    await expect.poll(() => card.innerText()).toContain('5 of 5');
    // The scanner types wherever focus is: still in Quantity.
    await wedge(page, 'A-02');
    await page.getByRole('status').getByText('Moved 5 × Glass jar from D-10 to A-02.').waitFor();
    await page.getByText('No replenishment task is open.').waitFor();

    const [task] = (await api().get('/replenishments?status=DONE')).body.data;
    expect(task).toMatchObject({ productExternalId: 'JAR', movedQuantity: 5, doneBy: 'rae' });
    const slots = (await api().get('/slots?productExternalId=JAR')).body.data;
    expect(slots.map((slot: { locationCode: string; quantity: number }) => [slot.locationCode, slot.quantity])).toEqual([
      ['A-02', 6],
      ['D-10', 15],
    ]);
    expect(errors).toEqual([]);
  });
});
