import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Layout, Place } from '../../src/floor/plan/layout';
import { mulberry32 } from '../../src/floor/plan/random';
import { tripLength } from '../../src/floor/plan/replenishment-route';
import { shortestRouteLength } from '../../src/floor/plan/walks';
import { ADMIN_TOKEN } from '../../test/helpers/context';
import { startServiceProcess, type Measurement } from '../harness';

/*
 * A simulated day of a shift's exceptions, run through the HTTP API of the service as it is today
 * ("after") and of the service before pick faces, reserve, replenishment, short picks that find the
 * stock and counts ("before": the last commit without them, built and started from a worktree).
 *
 * The floor: two blocks of 20 aisles × 40 positions, two locations at each position (L and R). 400
 * products, each with one or two small pick faces in the front block and a reserve slot in the back
 * block; a fifth of the products draw four fifths of the lines. Seeded errors: 3% of slots hold 1–2
 * units fewer than recorded (the simulation keeps what each slot truly holds). 2,000 orders of 1–4
 * lines arrive in 10 rounds; after each round, pickers take carts of 8 orders (POST /waves) until
 * none is free, and pick what the shelves truly hold: less than planned is a short pick. After:
 * a replenisher does the open tasks before each cart, a counter the counts asked for after each
 * round, and the day ends with a count of every location. Before: the same slots without roles
 * (reserve slots are slots waves take from), no replenishment, no counts.
 */
const LAYOUT: Layout = { aisles: 20, positionsPerAisle: 40, aisleSpacing: 3, positionSpacing: 1, crossAisleOffset: 1, depotAisle: 10, crossAisles: [{ afterPosition: 20, width: 2 }] };
const PRODUCTS = 400;
const ORDERS = 2_000;
const ROUNDS = 10;
const CART = { maxOrders: 8, maxItems: 40 };
const RESERVE_UNITS = 200;
const SLOT_ERRORS = 0.03;
/** The last commit before pick faces and reserve: the service as it was. */
const BEFORE = '974fb5c^';

interface SlotPlan {
  productExternalId: string;
  locationCode: string;
  quantity: number;
  role: 'pick' | 'reserve';
  min?: number;
  max?: number;
}

interface DayPlan {
  locations: { code: string; aisle: number; position: number }[];
  slots: SlotPlan[];
  /** What each slot truly holds at the start, by `slotKey`. */
  truth: Map<string, number>;
  rounds: { externalId: string; orderNumber: string; items: { productExternalId: string; productSku: string; quantity: number }[] }[][];
}

const slotKey = (locationCode: string, productExternalId: string) => `${locationCode}|${productExternalId}`;

/** The same day for both services (seeded). */
function dayPlan(): DayPlan {
  const random = mulberry32(20_261_207);
  const half = LAYOUT.crossAisles![0]!.afterPosition;
  const locations = [];
  for (let aisle = 1; aisle <= LAYOUT.aisles; aisle++) {
    for (let position = 1; position <= LAYOUT.positionsPerAisle; position++) for (const side of ['L', 'R']) locations.push({ code: `A${aisle}-${position}${side}`, aisle, position });
  }
  const shuffled = <T>(items: T[]) => {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  };
  const front = shuffled(locations.filter((location) => location.position <= half));
  const back = shuffled(locations.filter((location) => location.position > half));
  const slots: SlotPlan[] = [];
  for (let p = 0; p < PRODUCTS; p++) {
    const faces = random() < 0.4 ? 2 : 1;
    for (let f = 0; f < faces; f++) {
      const max = 6 + Math.floor(random() * 7);
      slots.push({ productExternalId: `P${p}`, locationCode: front.pop()!.code, quantity: max, role: 'pick', min: Math.floor(max / 4), max });
    }
    slots.push({ productExternalId: `P${p}`, locationCode: back.pop()!.code, quantity: RESERVE_UNITS, role: 'reserve' });
  }
  const truth = new Map(slots.map((slot) => [slotKey(slot.locationCode, slot.productExternalId), random() < SLOT_ERRORS ? slot.quantity - 1 - Math.floor(random() * 2) : slot.quantity]));
  const busy = shuffled(Array.from({ length: PRODUCTS }, (_, p) => p)).slice(0, PRODUCTS / 5);
  const product = () => (random() < 0.8 ? busy[Math.floor(random() * busy.length)]! : Math.floor(random() * PRODUCTS));
  const orders = Array.from({ length: ORDERS }, (_, o) => {
    const products = new Set(Array.from({ length: 1 + Math.floor(random() * 4) }, product));
    return {
      externalId: `O${o}`,
      orderNumber: `N${o}`,
      items: [...products].map((p) => ({ productExternalId: `P${p}`, productSku: `S${p}`, quantity: 1 + Math.floor(random() * 2) })),
    };
  });
  const perRound = ORDERS / ROUNDS;
  return { locations, slots, truth, rounds: Array.from({ length: ROUNDS }, (_, r) => orders.slice(r * perRound, (r + 1) * perRound)) };
}

interface DayOutcome {
  lines: number;
  /** Lines that left their wave with fewer units than ordered. */
  shortLines: number;
  /** Of those, lines whose product had the missing units somewhere on the floor at the time. */
  shortWhileHeld: number;
  /** Orders the plan of carts held for stock as each round arrived (before the replenisher's next trip). */
  ordersHeld: number;
  /** Orders still waiting at the end of the day (held for stock, or left over). */
  ordersWaiting: number;
  pickerWalk: number;
  /** The replenisher's trips as the console ordered them, and the same trips' tasks first in line. */
  replenisherWalk: number;
  replenisherWalkInLine: number;
  replenishments: number;
  trips: number;
  /** Trips whose order was proven the shortest walk. */
  exactTrips: number;
  /** Slots whose record differs from what they hold: before the day's last count, and after it. */
  mismatchesBeforeCount: number;
  mismatchesAfterCount: number;
}

type Json = Record<string, unknown>;

/** The service at `url`, as the ERP (public API) and the floor (warehouse API) call it. */
class Client {
  constructor(
    private readonly url: string,
    private readonly slug: string,
    private readonly key: string,
  ) {}

  async public(method: string, path: string, body?: unknown): Promise<Json> {
    return this.#call(`${this.url}/api/v1/public${path}`, this.key, method, body);
  }

  async floor(method: string, path: string, body?: unknown): Promise<Json> {
    return this.#call(`${this.url}/api/v1/warehouse/tenants/${this.slug}${path}`, ADMIN_TOKEN, method, body);
  }

  async #call(url: string, token: string, method: string, body: unknown): Promise<Json> {
    const response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as Json;
    if (response.status >= 400 && !(response.status === 409 && (answer.error as Json | undefined)?.code === 'NOTHING_TO_PICK')) {
      throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(answer)}`);
    }
    return answer;
  }

  /** A console user of the warehouse, signed in: its calls go to the console API with its session. */
  async consoleUser(username: string, role: 'picker' | 'supervisor'): Promise<(method: string, path: string, body?: unknown) => Promise<Json>> {
    const pin = '482913';
    await this.#call(`${this.url}/api/v1/admin/tenants/${this.slug}/users`, ADMIN_TOKEN, 'POST', { username, name: username, role, pin });
    const origin = new URL(this.url).origin;
    const signIn = await fetch(`${this.url}/console/api/session`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({ warehouse: this.slug, username, pin }),
    });
    const cookie = /^pickport_session=[^;]*/.exec(signIn.headers.get('set-cookie') ?? '')?.[0];
    if (!cookie) throw new Error(`${username} could not sign in: ${signIn.status}`);
    return async (method, path, body) => {
      const response = await fetch(`${this.url}/console/api${path}`, {
        method,
        headers: { origin, cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer = (await response.json()) as Json;
      if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    };
  }

  /** Every item of a paged list. */
  async all(path: string): Promise<Json[]> {
    const items: Json[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.floor('GET', `${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      items.push(...(page.data as Json[]));
      cursor = (page.pagination as Json | undefined)?.nextCursor as string | undefined;
    } while (cursor);
    return items;
  }
}

/** Runs the day on the service at `url`; `after` uses what the service has for a shift's exceptions. */
async function runDay(service: { url: string; tenant(): Promise<{ slug: string; key: string }> }, plan: DayPlan, after: boolean): Promise<DayOutcome> {
  const { slug, key } = await service.tenant();
  const client = new Client(service.url, slug, key);
  const truth = new Map(plan.truth);
  const held = (productExternalId: string) => [...truth].filter(([key]) => key.endsWith(`|${productExternalId}`)).reduce((sum, [, units]) => sum + units, 0);
  const places = new Map(plan.locations.map((location) => [location.code, { aisle: location.aisle, position: location.position }]));
  const outcome: DayOutcome = { lines: 0, shortLines: 0, shortWhileHeld: 0, ordersHeld: 0, ordersWaiting: 0, pickerWalk: 0, replenisherWalk: 0, replenisherWalkInLine: 0, replenishments: 0, trips: 0, exactTrips: 0, mismatchesBeforeCount: 0, mismatchesAfterCount: 0 };

  await client.floor('PUT', '/layout', LAYOUT);
  await client.floor('PUT', '/locations', { locations: plan.locations });
  const stock = new Map<string, number>();
  for (const slot of plan.slots) stock.set(slot.productExternalId, (stock.get(slot.productExternalId) ?? 0) + slot.quantity);
  const products = [...stock].map(([externalId, units]) => ({ externalId, sku: `S${externalId.slice(1)}`, name: `Product ${externalId}`, stock: units }));
  for (let i = 0; i < products.length; i += 200) await client.public('POST', '/products/batch', { products: products.slice(i, i + 200) });
  const slots = plan.slots.map(({ role, min, max, ...slot }) => (after ? { ...slot, role, ...(role === 'pick' ? { min, max } : {}) } : slot));
  await client.floor('PUT', '/slots', { slots });
  if (after) await client.floor('PUT', '/settings', { pickFromReserve: true });

  const replenisher = after ? await client.consoleUser('replenisher', 'picker') : undefined;
  /**
   * The replenisher on the console's Replenish screen: trip after trip, each task of a trip in the
   * walking order the screen gives, taken, then completed with what the reserve truly holds.
   */
  const replenish = async () => {
    for (;;) {
      const trip = (await replenisher!('GET', '/replenishments/trip')).data as { tasks: Json[]; distance: number; exact: boolean };
      if (trip.tasks.length === 0) return;
      outcome.trips++;
      if (trip.exact) outcome.exactTrips++;
      outcome.replenisherWalk += trip.distance;
      const walks = trip.tasks.map((task) => ({ from: places.get(task.fromLocationCode as string)!, to: places.get(task.toLocationCode as string)! }));
      // The line: tasks orders wait for before top-ups (MIN), each oldest first (ids are time-ordered).
      const lineKey = (task: Json) => `${task.reason === 'MIN' ? 1 : 0}${task.id as string}`;
      const inLine = [...trip.tasks.keys()].sort((a, b) => lineKey(trip.tasks[a]!).localeCompare(lineKey(trip.tasks[b]!)));
      outcome.replenisherWalkInLine += tripLength(LAYOUT, walks, inLine);
      for (const task of trip.tasks) {
        const from = slotKey(task.fromLocationCode as string, task.productExternalId as string);
        const to = slotKey(task.toLocationCode as string, task.productExternalId as string);
        const moved = Math.min(task.quantity as number, truth.get(from) ?? 0);
        if (moved === 0) {
          await replenisher!('POST', `/replenishments/${task.id}/cancel`);
          continue;
        }
        await replenisher!('POST', `/replenishments/${task.id}/take`);
        truth.set(from, truth.get(from)! - moved);
        truth.set(to, (truth.get(to) ?? 0) + moved);
        await replenisher!('POST', `/replenishments/${task.id}/complete`, { quantity: moved });
        outcome.replenishments++;
      }
    }
  };

  /** Counts the given counts: every product the location truly holds. */
  const count = async (counts: Json[]) => {
    for (const task of counts) {
      const location = task.locationCode as string;
      const lines = [...truth].filter(([key]) => key.startsWith(`${location}|`)).map(([key, units]) => ({ productExternalId: key.split('|')[1]!, quantity: units }));
      await client.floor('POST', `/counts/${task.id}/finish`, { lines });
    }
  };

  /** Picks a wave as the shelves allow, stop after stop (new stops come after a short pick), and completes it. */
  const pick = async (waveId: string) => {
    const visited = new Map<string, Place>();
    for (;;) {
      const wave = (await client.floor('GET', `/waves/${waveId}`)).data as { stops: { locationCode: string; aisle: number; position: number; lines: Json[] }[] };
      const open = wave.stops.flatMap((stop) => stop.lines.filter((line) => line.pickedQuantity === null).map((line) => ({ stop, line })));
      if (open.length === 0) break;
      for (const { stop, line } of open) {
        visited.set(stop.locationCode, { aisle: stop.aisle, position: stop.position });
        const at = slotKey(stop.locationCode, line.productExternalId as string);
        const taken = Math.min(line.quantity as number, truth.get(at) ?? 0);
        truth.set(at, (truth.get(at) ?? 0) - taken);
        const short = taken < (line.quantity as number);
        await client.floor('POST', `/waves/${waveId}/picks`, {
          orderExternalId: line.orderExternalId,
          productExternalId: line.productExternalId,
          quantity: taken,
          locationCode: stop.locationCode,
          ...(short ? { reason: 'not found' } : {}),
        });
      }
    }
    const wave = (await client.floor('GET', `/waves/${waveId}`)).data as { stops: { lines: Json[] }[] };
    const lines = new Map<string, { ordered: number; picked: number; product: string }>();
    for (const line of wave.stops.flatMap((stop) => stop.lines)) {
      const id = `${line.orderExternalId}|${line.productExternalId}`;
      const seen = lines.get(id) ?? { ordered: line.orderedQuantity as number, picked: 0, product: line.productExternalId as string };
      seen.picked += line.pickedQuantity as number;
      lines.set(id, seen);
    }
    for (const line of lines.values()) {
      outcome.lines++;
      if (line.picked >= line.ordered) continue;
      outcome.shortLines++;
      if (held(line.product) >= line.ordered - line.picked) outcome.shortWhileHeld++;
    }
    outcome.pickerWalk += shortestRouteLength(LAYOUT, [...visited.values()]);
    await client.floor('POST', `/waves/${waveId}/complete`);
  };

  for (const round of plan.rounds) {
    for (let i = 0; i < round.length; i += 50) await client.public('POST', '/orders/batch', { orders: round.slice(i, i + 50) });
    outcome.ordersHeld += (((await client.floor('GET', `/waves/plan?maxOrders=${CART.maxOrders}&maxItems=${CART.maxItems}`)).data as Json).held as unknown[] | undefined)?.length ?? 0;
    for (;;) {
      if (after) await replenish();
      const made = await client.floor('POST', '/waves', CART);
      if (!made.data) break;
      await pick((made.data as Json).id as string);
    }
    if (after) await count(await client.all('/counts?status=OPEN'));
  }
  if (after) await replenish();
  outcome.ordersWaiting = ((await client.public('GET', '/orders?status=PENDING&limit=1')).pagination as { total: number }).total;
  const mismatches = async () => (await client.all('/slots')).filter((slot) => truth.get(slotKey(slot.locationCode as string, slot.productExternalId as string)) !== slot.quantity).length;
  outcome.mismatchesBeforeCount = await mismatches();
  if (after) {
    const made = await client.floor('POST', '/counts', { locationCodes: [...new Set(plan.slots.map((slot) => slot.locationCode))] });
    await count(made.data as Json[]);
  }
  outcome.mismatchesAfterCount = await mismatches();
  return outcome;
}

/** The service of `revision`, in a worktree of its own (its dependencies: this checkout's). */
function worktreeAt(revision: string): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'pickport-before-'));
  execFileSync('git', ['worktree', 'add', '--detach', root, revision], { stdio: 'ignore' });
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'));
  return {
    root,
    remove() {
      execFileSync('git', ['worktree', 'remove', '--force', root], { stdio: 'ignore' });
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export default async function shift(): Promise<Measurement[]> {
  const plan = dayPlan();
  const before = worktreeAt(BEFORE);
  let today: DayOutcome;
  let then: DayOutcome;
  try {
    const old = await startServiceProcess({ root: before.root });
    try {
      then = await runDay(old, plan, false);
      console.log(`  before: ${JSON.stringify(then)}`);
    } finally {
      await old.close();
    }
  } finally {
    before.remove();
  }
  const service = await startServiceProcess();
  try {
    today = await runDay(service, plan, true);
  } finally {
    await service.close();
  }
  console.log(`  after: ${JSON.stringify(today)}`);
  const share = (part: number, whole: number) => (100 * part) / whole;
  return [
    { name: 'lines shipped short while the floor held the units, % of lines', unit: '%', service: share(today.shortWhileHeld, today.lines), baseline: share(then.shortWhileHeld, then.lines), higherIsBetter: false, target: 'at most 0.1%' },
    { name: 'lines shipped short, % of lines', unit: '%', service: share(today.shortLines, today.lines), baseline: share(then.shortLines, then.lines), higherIsBetter: false },
    { name: 'orders held for stock as their round arrived (baseline: never held)', unit: 'orders', service: today.ordersHeld, baseline: then.ordersHeld, higherIsBetter: false },
    { name: 'orders not picked by the end of the day', unit: 'orders', service: today.ordersWaiting, baseline: then.ordersWaiting, higherIsBetter: false },
    { name: "pickers' walk, whole day", unit: 'length', service: today.pickerWalk, baseline: then.pickerWalk, higherIsBetter: false },
    { name: "replenisher's walk, whole day (baseline: none)", unit: 'length', service: today.replenisherWalk, baseline: then.replenisherWalk, higherIsBetter: false },
    { name: "replenisher's trips in walking order vs the same tasks first in line", unit: 'length', service: today.replenisherWalk, baseline: today.replenisherWalkInLine, higherIsBetter: false },
    { name: "replenisher's trips walked in a proven shortest order", unit: '%', service: share(today.exactTrips, today.trips), baseline: 100, higherIsBetter: true, target: '100%' },
    { name: 'slots whose record is wrong, after the day\'s counts', unit: 'slots', service: today.mismatchesAfterCount, baseline: then.mismatchesAfterCount, higherIsBetter: false, target: '0' },
  ];
}
