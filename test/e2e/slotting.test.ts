import { expect, it } from 'vitest';
import { completeWaveOf, LAYOUT } from '../floor/helpers';
import { item, order, warehouse } from '../orders/helpers';
import { accessibilityProblems, ConsoleFloor, describeInBrowser, DESKTOP, type FloorSetup, PHONE, SCREENSHOTS, signIn } from './browser';

const PIN = '864209';

/*
 * Every wave picks the mug, which stands at D-10, the far corner from the depot (aisle 1); two
 * pick the bowl, at D-09 beside it; the candle and the soap stand by the depot and
 * no wave picks them; the hat, picked once, stands between them. The advice exchanges the mug with
 * the candle, then the bowl with the soap: four moves, the first two saving most.
 */
const FLOOR: FloorSetup = {
  layout: LAYOUT,
  locations: [
    { code: 'A-01', aisle: 1, position: 1 },
    { code: 'A-02', aisle: 1, position: 2 },
    { code: 'B-05', aisle: 2, position: 5 },
    { code: 'D-09', aisle: 4, position: 9 },
    { code: 'D-10', aisle: 4, position: 10 },
  ],
  products: [
    { externalId: 'MUG', sku: 'SKU-MUG', name: 'Blue mug', stock: 100, locationCode: 'D-10' },
    { externalId: 'BOWL', sku: 'SKU-BOWL', name: 'Soup bowl', stock: 100, locationCode: 'D-09' },
    { externalId: 'HAT', sku: 'SKU-HAT', name: 'Wool hat', stock: 100, locationCode: 'B-05' },
    { externalId: 'CANDLE', sku: 'SKU-CANDLE', name: 'Pillar candle', stock: 100, locationCode: 'A-01' },
    { externalId: 'SOAP', sku: 'SKU-SOAP', name: 'Olive soap', stock: 100, locationCode: 'A-02' },
  ],
  staff: [{ username: 'vi', name: 'Vi Vance', role: 'supervisor' }],
  pin: PIN,
};

/** One order of one unit of each product, picked in a wave of its own, completed through the warehouse API. */
async function completedWave(floor: ConsoleFloor, externalId: string, products: string[]) {
  expect((await floor.tenant.api.post('/orders', order(externalId, products.map((product) => item(product))))).status).toBe(201);
  await completeWaveOf(warehouse(floor.ctx, floor.tenant), [externalId]);
}

async function seed(floor: ConsoleFloor): Promise<void> {
  for (const [index, products] of [['MUG', 'HAT'], ['MUG', 'BOWL'], ['MUG', 'BOWL'], ['MUG']].entries()) await completedWave(floor, `SA-${index + 1}`, products);
}

describeInBrowser('console in a real browser: slotting advice', { floor: FLOOR, seed }, (floor) => {
  const locationOf = async (externalId: string) => (await floor().tenant.api.get(`/products/${externalId}`)).body.data.locationCode;

  it('a supervisor proposes moves, sees the saving and the busy product moving near the depot, applies them, and the products stand there', async () => {
    const supervisor = await floor().open(DESKTOP);
    const { page } = supervisor;
    await signIn(page, floor().tenant.slug, 'vi', PIN);
    const section = page.getByRole('region', { name: 'Slotting advice' });
    await section.waitFor();

    // The proposal's request is held until the screen has said it is working.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/console/api/slotting/proposals', async (route) => {
      await held;
      await route.continue();
    });
    await section.getByRole('button', { name: 'Propose moves' }).click();
    await section.getByRole('status').getByText("Replaying the period's orders…").waitFor();
    expect(await section.getByRole('button', { name: 'Propose moves' }).isDisabled()).toBe(true);
    release();

    const moves = section.getByRole('table', { name: 'Proposed moves' });
    await moves.waitFor();
    expect(await moves.getByRole('row').allInnerTexts()).toEqual([
      expect.stringMatching(/^Product\s+From\s+To\s+Picks$/),
      expect.stringMatching(/^Blue mug \(SKU-MUG\)\s+D-10\s+A-01\s+4$/),
      expect.stringMatching(/^Soup bowl \(SKU-BOWL\)\s+D-09\s+A-02\s+2$/),
      expect.stringMatching(/^Pillar candle \(SKU-CANDLE\)\s+A-01\s+D-10\s+0$/),
      expect.stringMatching(/^Olive soap \(SKU-SOAP\)\s+A-02\s+D-09\s+0$/),
    ]);
    await section.getByText(/^Walking [\d,.]+ → [\d,.]+ \(−\d+\.\d%\) over 4 waves$/).waitFor();
    // What the figure is: the orders planned into carts again (each wave had one order) for each placement.
    await section
      .getByText("The period's 4 orders, in the order they were picked, planned into carts of at most 1 order and 2 units again for each placement, each cart walked by its exact route.")
      .waitFor();
    // Four waves are a small sample: the figure says so.
    await section.getByText('Made from only 4 waves: few waves make an uncertain figure, and the next waves may save more or less.').waitFor();
    // How the saving grows with the moves: the mug's exchange alone, then both.
    const curve = section.getByRole('table', { name: 'Saving by moves' });
    const made = await floor().ctx.database.db.selectFrom('slotting_proposals').select('id').where('tenant_id', '=', floor().tenant.id).executeTakeFirstOrThrow();
    const points = (await warehouse(floor().ctx, floor().tenant).get(`/slotting/proposals/${made.id}`)).body.data.savingByMoves;
    expect(points.map((point: { moves: number }) => point.moves)).toEqual([2, 4]);
    const walking = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
    expect(await curve.getByRole('row').allInnerTexts()).toEqual([
      expect.stringMatching(/^Moves\s+Walking\s+Saving$/),
      ...points.map((point: { moves: number; walking: number; savingPercent: number }) => expect.stringMatching(new RegExp(`^${point.moves}\\s+${walking.format(point.walking).replaceAll('.', '\\.')}\\s+−${point.savingPercent.toFixed(1)}%$`))),
    ]);
    expect(await curve.getAttribute('aria-describedby')).toBe('slotting-curve-hint');
    expect(points[0]!.savingPercent).toBeGreaterThan(0);
    expect(points[1]!.savingPercent).toBeGreaterThan(points[0]!.savingPercent);
    // Nothing moves until the supervisor applies the proposal.
    expect(await locationOf('MUG')).toBe('D-10');

    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      expect(await accessibilityProblems(page), `${viewport.width}x${viewport.height}`).toEqual([]);
      // Nothing of the section runs off a handheld's screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    }
    await section.screenshot({ path: `${SCREENSHOTS}slotting-advice.png`, animations: 'disabled', caret: 'hide' });

    await section.getByRole('button', { name: 'Apply moves' }).click();
    await section.getByRole('status').getByText('Moved 4 products.').waitFor();
    expect(await section.getByRole('button', { name: 'Apply moves' }).count()).toBe(0);
    expect([await locationOf('MUG'), await locationOf('BOWL'), await locationOf('CANDLE'), await locationOf('SOAP'), await locationOf('HAT')]).toEqual(['A-01', 'A-02', 'D-10', 'D-09', 'B-05']);

    // Where the products stand now, no move shortens the same waves.
    await section.getByLabel('Most moves').fill('5');
    await section.getByRole('button', { name: 'Propose moves' }).click();
    await section.getByText("No move would shorten the walking of the period's 4 waves.").waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(supervisor.errors).toEqual([]);
  });

  it('says why a proposal was refused, and proposes nothing', async () => {
    const supervisor = await floor().open(PHONE);
    const { page } = supervisor;
    await signIn(page, floor().tenant.slug, 'vi', PIN);
    const section = page.getByRole('region', { name: 'Slotting advice' });
    await section.getByLabel('Most moves').fill('0');
    // The browser's own check of the field is what a supervisor meets first; the service's answer is the one this test reads.
    await section.getByLabel('Most moves').evaluate((input) => input.removeAttribute('min'));
    await section.getByRole('button', { name: 'Propose moves' }).click();
    await expect.poll(() => section.getByRole('alert').innerText()).toMatch(/maxMoves/);
    expect(await section.getByRole('table', { name: 'Proposed moves' }).count()).toBe(0);
    expect(supervisor.errors).toEqual([]);
  });
});
