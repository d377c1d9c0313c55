import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import { type Browser, type BrowserContext, type CDPSession, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { GS } from '../../src/catalog/gs1';
import { createTestContext, type TestContext, type TestTenant, UNLIMITED } from '../helpers/context';
import { item, order, warehouse } from '../orders/helpers';

/** Debian's Chromium (`apt-get install -y chromium`); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const SKIP_LINE = `console browser tests skipped: no Chromium at ${CHROMIUM}; to run them: apt-get install -y chromium (or set CHROMIUM_PATH)`;

export const PHONE = { width: 360, height: 640 };
export const DESKTOP = { width: 1280, height: 800 };
export const SCREENSHOTS = fileURLToPath(new URL('../../docs/console/', import.meta.url));

/**
 * Headless Chromium as this machine runs it: no sandbox (root), no GPU, and none of the background
 * connections to Google's hosts that a closed network refuses. Playwright gives each launch a
 * fresh, empty profile (user-data dir) of its own.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Makes the test's app listen on loopback, as the real service does, and answers its origin. */
export async function listen(ctx: TestContext): Promise<string> {
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
}

/** What a browser test of the console sets up: a floor, its products and its staff (one PIN for all). */
export interface FloorSetup {
  layout: object;
  locations: readonly { code: string; aisle: number; position: number }[];
  /** Product bodies as POST /products takes them. */
  products: readonly object[];
  staff: readonly { username: string; role: 'picker' | 'packer' | 'supervisor'; name?: string }[];
  pin: string;
}

/**
 * The service listening on loopback with one tenant set up as `FloorSetup` says, and Chromium:
 * where every browser test of the console starts. Devices opened through it close with it.
 */
export class ConsoleFloor {
  /** The staff's ids, by username. */
  readonly users: Record<string, string> = {};
  private readonly devices: Device[] = [];

  private constructor(
    readonly ctx: TestContext,
    readonly tenant: TestTenant,
    readonly origin: string,
    readonly browser: Browser,
    private readonly pin: string,
  ) {}

  static async start(setup: FloorSetup): Promise<ConsoleFloor> {
    const ctx = await createTestContext();
    const tenant = await ctx.tenant(UNLIMITED);
    const floor = new ConsoleFloor(ctx, tenant, await listen(ctx), await launchChromium(), setup.pin);
    const plan = warehouse(ctx, tenant);
    expect((await plan.put('/layout', setup.layout)).status).toBe(200);
    expect((await plan.put('/locations', { locations: setup.locations })).status).toBe(200);
    for (const product of setup.products) {
      const created = await tenant.api.post('/products', product);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    for (const { username, role, name = username } of setup.staff) {
      const created = await ctx.admin('POST', `/api/v1/admin/tenants/${tenant.slug}/users`, { username, name, role, pin: setup.pin });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      floor.users[username] = created.body.data.id;
    }
    return floor;
  }

  /** A device with the console open, closed with the floor. */
  async open(viewport = PHONE): Promise<Device> {
    const opened = await device(this.browser, this.origin, viewport);
    this.devices.push(opened);
    return opened;
  }

  /** A device with the console open and `username` of the staff signed in. */
  async signedIn(username: string, viewport = PHONE): Promise<Device> {
    const opened = await this.open(viewport);
    await signIn(opened.page, this.tenant.slug, username, this.pin);
    return opened;
  }

  /** Places an order through the public API: its lines as product externalId → quantity. */
  async placeOrder(externalId: string, items: Record<string, number>): Promise<void> {
    const placed = await this.tenant.api.post('/orders', order(externalId, Object.entries(items).map(([id, quantity]) => item(id, quantity))));
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
  }

  /** The order as the public API reads it. */
  async orderOf(externalId: string) {
    return (await this.tenant.api.get(`/orders/${externalId}`)).body.data;
  }

  async close(): Promise<void> {
    for (const { context } of this.devices) await context.close().catch(() => {});
    await this.browser.close();
    await this.ctx.close();
  }
}

/**
 * A block of browser tests on one `ConsoleFloor`: started as `floor` says and seeded before its
 * tests, closed after them; skipped, with a warning, where this machine has no Chromium. The body
 * reads the floor through its argument once the tests run.
 */
export function describeInBrowser(
  name: string,
  options: { timeout?: number; floor: FloorSetup; seed?: (floor: ConsoleFloor) => Promise<void> },
  body: (floor: () => ConsoleFloor) => void,
): void {
  if (!haveChromium) console.warn(SKIP_LINE);
  describe.skipIf(!haveChromium)(name, { timeout: options.timeout ?? 90_000 }, () => {
    let floor: ConsoleFloor | undefined;
    beforeAll(async () => {
      floor = await ConsoleFloor.start(options.floor);
      await options.seed?.(floor);
    });
    afterAll(async () => {
      await floor?.close();
    });
    body(() => floor!);
  });
}

export interface Device {
  context: BrowserContext;
  page: Page;
  /** Script errors and Content-Security-Policy refusals seen in the page: none may happen. */
  errors: string[];
}

/** A device: its own cookies and storage, at the given size, with a page on the console. */
export async function device(browser: Browser, origin: string, viewport = PHONE): Promise<Device> {
  const context = await browser.newContext({ viewport, baseURL: origin });
  await context.addInitScript(recordFeedback);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto('/console');
  return { context, page, errors };
}

/**
 * Runs in the page before the app: keeps what the device was asked to do for the picker's senses,
 * the vibration patterns and the pitch of each tone, in `pickportFeedback`.
 */
function recordFeedback(): void {
  type Recorded = { vibrations: unknown[]; tones: number[] };
  const page = globalThis as unknown as {
    pickportFeedback: Recorded;
    navigator: { vibrate?: (pattern: unknown) => boolean };
    AudioContext?: { prototype: { createOscillator(): { frequency: { value: number }; start(when?: number): void } } };
  };
  const recorded: Recorded = { vibrations: [], tones: [] };
  page.pickportFeedback = recorded;
  page.navigator.vibrate = (pattern) => (recorded.vibrations.push(pattern), true);
  const audio = page.AudioContext?.prototype;
  if (!audio) return;
  const create = audio.createOscillator;
  audio.createOscillator = function (this: unknown) {
    const oscillator = create.call(this);
    const start = oscillator.start.bind(oscillator);
    oscillator.start = (when) => (recorded.tones.push(oscillator.frequency.value), start(when));
    return oscillator;
  };
}

/** What the page asked of the device's speaker and vibration motor so far. */
export const feedbackOf = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { pickportFeedback: { vibrations: unknown[]; tones: number[] } }).pickportFeedback);

/** Fills in the sign-in form and sends it. */
export async function submitSignIn(page: Page, warehouse: string, username: string, pin: string): Promise<void> {
  await page.getByLabel('Warehouse').fill(warehouse);
  await page.getByLabel('User', { exact: true }).fill(username);
  await page.getByLabel('PIN').fill(pin);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export async function signIn(page: Page, warehouse: string, username: string, pin: string): Promise<void> {
  await submitSignIn(page, warehouse, username, pin);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** What a keyboard-wedge scanner does: types the code into the focused field and presses Enter. */
export async function scan(page: Page, code: string): Promise<void> {
  const input = page.getByLabel('Scan', { exact: true });
  await expect.poll(() => input.evaluate((element) => element === element.ownerDocument.activeElement), { timeout: 5_000 }).toBe(true);
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
}

/** DevTools' modifier bit for Ctrl. */
const CTRL = 2;

/**
 * A keyboard-wedge scanner as a handheld has it: the code's keystrokes 5 to 10 ms apart, then
 * Enter, into whatever has focus (unlike `scan`, nothing is focused first). The device stamps each
 * keystroke when the scanner sends it, and the page tells a scan by those stamps however late a
 * busy device hands the keys over; so the keys go through Chromium's input with the scanner's
 * times (DevTools' `timestamp`), and a busy test machine cannot make a scan look typed by hand.
 * GS1's group separator goes as Ctrl+], as such scanners type it.
 */
export async function wedge(page: Page, code: string): Promise<void> {
  const input = await inputOf(page);
  let at = Date.now();
  const send = async (key: string, text: string, keyCode: number) => {
    // Never stamped ahead of the clock: the keys the page sees next are later than the scan's.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
    const stamp = { windowsVirtualKeyCode: keyCode, timestamp: at / 1000 };
    await input.send('Input.dispatchKeyEvent', { type: 'keyDown', key, text, unmodifiedText: text, ...stamp });
    await input.send('Input.dispatchKeyEvent', { type: 'keyUp', key, ...stamp });
    at += 5 + Math.random() * 5;
  };
  // GS1's group separator, as a scanner emulating a keyboard types it: Ctrl+] (no key types GS itself).
  const sendGroupSeparator = async () => {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
    const stamp = { timestamp: at / 1000, modifiers: CTRL };
    await input.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', key: 'Control', code: 'ControlLeft', windowsVirtualKeyCode: 17, ...stamp });
    await input.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', key: ']', code: 'BracketRight', windowsVirtualKeyCode: 221, ...stamp });
    await input.send('Input.dispatchKeyEvent', { type: 'keyUp', key: ']', code: 'BracketRight', windowsVirtualKeyCode: 221, ...stamp });
    await input.send('Input.dispatchKeyEvent', { type: 'keyUp', key: 'Control', code: 'ControlLeft', windowsVirtualKeyCode: 17, timestamp: at / 1000 });
    at += 5 + Math.random() * 5;
  };
  for (const char of code) {
    if (char === GS) await sendGroupSeparator();
    else await send(char, char, /^[a-z0-9]$/i.test(char) ? char.toUpperCase().charCodeAt(0) : 0);
  }
  await send('Enter', '\r', 13);
}

const inputs = new WeakMap<Page, CDPSession>();
async function inputOf(page: Page): Promise<CDPSession> {
  let session = inputs.get(page);
  if (!session) inputs.set(page, (session = await page.context().newCDPSession(page)));
  return session;
}

/** Runs axe-core in the page; answers the serious and critical violations, described. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const results = await page.evaluate(() => (globalThis as unknown as { axe: typeof axe }).axe.run({ resultTypes: ['violations'] }));
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** Checks the screen with axe at phone and desktop size and saves a screenshot of each for docs/console.md. */
export async function checkScreen(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const original = page.viewportSize();
  for (const [size, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    await page.setViewportSize(viewport);
    expect(await accessibilityProblems(page), `${name} at ${viewport.width}x${viewport.height}`).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}${name}-${size}.png`, fullPage: true, animations: 'disabled', caret: 'hide' });
  }
  if (original) await page.setViewportSize(original);
}
