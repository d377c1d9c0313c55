import type { Locator } from 'playwright-core';
import { expect, it } from 'vitest';
import { LAYOUT } from '../floor/helpers';
import { item, order, warehouse } from '../orders/helpers';
import { checkScreen, ConsoleFloor, describeInBrowser, DESKTOP, type FloorSetup, PHONE, signIn } from './browser';

const PIN = '246813';

/** A UTC day as the screen's tables name it ("24 Nov"). */
const dayLabel = (date: Date) => new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(date);

/** Whether `element` stands wholly inside the box of `region`: shown without scrolling it. */
async function within(region: Locator, element: Locator): Promise<boolean> {
  const [outer, inner] = [await region.boundingBox(), await element.boundingBox()];
  if (!outer || !inner) return false;
  const slack = 0.5;
  return inner.x >= outer.x - slack && inner.y >= outer.y - slack && inner.x + inner.width <= outer.x + outer.width + slack && inner.y + inner.height <= outer.y + outer.height + slack;
}

/*
 * A supervisor opens Insight after a wave of three orders was picked through the warehouse API
 * (one of MUG short, "damaged"): the heat map and the charts read the same numbers as text.
 */
const FLOOR: FloorSetup = {
  layout: LAYOUT,
  locations: [
    { code: 'A-01', aisle: 1, position: 1 },
    { code: 'B-04', aisle: 2, position: 4 },
    { code: 'D-09', aisle: 4, position: 9 },
  ],
  products: [
    { externalId: 'MUG', sku: 'SKU-MUG', name: 'Blue mug', stock: 50, locationCode: 'A-01' },
    { externalId: 'TEA', sku: 'SKU-TEA', name: 'Green tea', stock: 50, locationCode: 'D-09' },
  ],
  staff: [{ username: 'sue', role: 'supervisor', name: 'Sue Park' }],
  pin: PIN,
};

async function seed(floor: ConsoleFloor): Promise<void> {
  const api = warehouse(floor.ctx, floor.tenant);
  for (const id of ['I-1', 'I-2', 'I-3']) expect((await floor.tenant.api.post('/orders', order(id, [item('MUG', 2), item('TEA', 1)]))).status).toBe(201);
  const wave = (await api.post('/waves', {})).body.data;
  for (const id of ['I-1', 'I-2', 'I-3']) {
    const short = id === 'I-2';
    expect((await api.post(`/waves/${wave.id}/picks`, { orderExternalId: id, productExternalId: 'MUG', quantity: short ? 1 : 2, ...(short ? { reason: 'damaged' } : {}) })).status).toBe(200);
    expect((await api.post(`/waves/${wave.id}/picks`, { orderExternalId: id, productExternalId: 'TEA', quantity: 1 })).status).toBe(200);
  }
  expect((await api.post(`/waves/${wave.id}/complete`)).status).toBe(200);
  await api.advance('I-1', 'pack', 'dispatch');
}

describeInBrowser('console in a real browser: the Insight screen', { floor: FLOOR, seed }, (floor) => {
  for (const viewport of [PHONE, DESKTOP]) {
    it(`shows the heat map and the charts with their numbers as text at ${viewport.width} px`, async () => {
      const { page, errors } = await floor().open(viewport);
      await signIn(page, floor().tenant.slug, 'sue', PIN);
      await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Insight' }).click();
      await page.getByRole('heading', { name: 'Insight', level: 2 }).waitFor();

      await page.getByRole('img', { name: 'Heat map of picks per location' }).waitFor();
      const locations = page.getByRole('table', { name: /Locations picked from/ });
      await expect.poll(() => locations.getByRole('row', { name: /^A-01/ }).innerText()).toMatch(/A-01\s+1\s+1\s+3\s+5/);
      expect(await locations.getByRole('row', { name: /^D-09/ }).innerText()).toMatch(/D-09\s+4\s+9\s+3\s+3/);
      expect(await page.getByRole('list', { name: 'Legend' }).innerText()).toContain('no picks');

      const today = dayLabel(new Date());
      const orders = page.getByRole('figure', { name: 'Orders per day' });
      expect(await orders.getByRole('row', { name: new RegExp(`^${today}`) }).innerText()).toMatch(new RegExp(`${today}\\s+3\\s+3\\s+1\\s+1`));
      await expect.poll(() => orders.locator('canvas').count()).toBe(1);
      const shorts = page.getByRole('figure', { name: 'Short picks by reason per day' });
      expect(await shorts.getByRole('columnheader', { name: 'damaged' }).count()).toBe(1);
      expect(await shorts.getByRole('row', { name: new RegExp(`^${today}`) }).innerText()).toMatch(new RegExp(`${today}\\s+1`));
      await page.getByRole('figure', { name: 'Walking per order: the planned route against S-shape' }).waitFor();
      await page.getByRole('figure', { name: 'Picking rate per picker-hour' }).waitFor();

      // Every table shows its newest row and every column within its own box, without scrolling it.
      for (const region of await page.getByRole('region', { name: / as a table$/ }).all()) {
        const name = await region.getAttribute('aria-label');
        const newest = name === 'Picks per location as a table' || name === 'Pickers as a table' ? region.getByRole('row').nth(1) : region.getByRole('row', { name: new RegExp(`^${today}`) });
        expect(await within(region, newest), `${name}: its newest row`).toBe(true);
        for (const header of await region.getByRole('columnheader').all()) expect(await within(region, header), `${name}: ${await header.innerText()}`).toBe(true);
      }
      // The legends read the latest values without a pointer over the chart, which a handheld does not have.
      const legend = (label: string) => orders.getByRole('row', { name: new RegExp(`^${label}`), includeHidden: true });
      expect(await legend('Received').innerText()).toMatch(/Received\s*3/);
      expect(await legend('Dispatched').innerText()).toMatch(/Dispatched\s*1/);
      for (const figure of await page.getByRole('figure').all()) expect(await figure.innerText(), 'no legend waits for a pointer').not.toContain('--');

      // The chart, and the page with it, fit the screen: nothing to scroll sideways.
      const chartWidth = await orders.locator('canvas').evaluate((canvas) => canvas.getBoundingClientRect().width);
      expect(chartWidth).toBeLessThanOrEqual(viewport.width);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      expect(errors).toEqual([]);
      if (viewport === DESKTOP) await checkScreen(page, 'insight');
    });
  }

  it('shows a period by the hour when asked', async () => {
    const { page } = await floor().open(DESKTOP);
    await signIn(page, floor().tenant.slug, 'sue', PIN);
    await page.goto('/console/insight');
    await page.getByRole('img', { name: 'Heat map of picks per location' }).waitFor();
    await page.getByLabel('One point per').selectOption('hour');
    await page.getByRole('button', { name: 'Show' }).click();
    const orders = page.getByRole('figure', { name: 'Orders per hour' });
    await orders.waitFor();
    const now = new Date();
    const hour = `${dayLabel(now)} ${now.toISOString().slice(11, 13)}:00`;
    // A row per hour of the last 7 days under the header, this hour among them.
    const rows = await orders.getByRole('row').evaluateAll((all) => all.map((row) => row.textContent ?? ''));
    expect(rows.length).toBe(7 * 24 + 1);
    expect(rows.some((row) => row.startsWith(hour))).toBe(true);
  });
});
