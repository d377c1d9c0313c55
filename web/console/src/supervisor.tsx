import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { POLICIES } from '../../../src/floor/plan/layout';
import { api, ApiError, apiPage, describe, type Board, type BodyOf, type CartPlan, type ExpiringLot, type Floor, type PickerWave, type Settings } from './api';
import { FloorPlan } from './floor-plan';
import { accepted } from './feedback';
import { PrintLink } from './print';
import { REASONS } from './replenish';
import { useScanner } from './scanner';
import { SlottingAdvice } from './slotting';
import { plural, waveLabel, waveName } from './text';

const STATUSES = ['PENDING_VALIDATION', 'PENDING', 'IN_PICKING', 'PICKED', 'PACKED', 'DISPATCHED', 'CANCELLED'];
/** The board follows the floor without a reload. */
const REFRESH_MS = 10_000;
/** How many carts of the plan the board shows: the ones about to be handed out. */
const NEXT_CARTS = 5;

const round = (value: number) => Math.round(value * 10) / 10;

/** The panels whose controls act: what an action did is said in its own panel, next to the control. */
type Place = 'waves' | 'settings' | 'create' | 'stock' | 'replenishment';
/** What the last action did, where; `placed` counts the times it was brought into view. */
interface Feedback {
  at: Place;
  kind: 'info' | 'error';
  text: string;
  seq: number;
  placed: number;
}

/** The supervisor's desk: what is happening on the floor, and the few levers to act on it. */
export default function Supervisor() {
  const [board, setBoard] = useState<Board | null>(null);
  const [floor, setFloor] = useState<Floor | null>(null);
  const [plan, setPlan] = useState<CartPlan | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const said = useRef(0);
  // Adjust stock's product, typed or scanned; a scan also moves the focus on to Amount.
  const [product, setProduct] = useState('');
  const [scans, setScans] = useState(0);

  // An error of the board's own reads stays until dismissed or replaced by the next one: a redraw does not clear it.
  const refresh = useCallback(async () => {
    try {
      const [nextBoard, nextFloor, nextPlan] = await Promise.all([api('GET', '/board'), api('GET', '/floor'), api('GET', '/waves/plan').catch(withoutLayout)]);
      setBoard(nextBoard);
      setFloor(nextFloor);
      setPlan(nextPlan);
    } catch (failure) {
      setError(describe(failure));
    }
  }, []);
  const say = (at: Place, kind: Feedback['kind'], text: string) => {
    const seq = ++said.current;
    setFeedback({ at, kind, text, seq, placed: 0 });
    return seq;
  };
  // The one thing on this screen a scan names is a product: the one to adjust the stock of.
  useScanner((code) => {
    accepted();
    setProduct(code);
    setScans((n) => n + 1);
    say('stock', 'info', `Scanned ${code}: set the amount, then Adjust stock.`);
  });

  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  /**
   * Runs one supervisor action, says how it went next to its control (`at`) and redraws the board;
   * the redraw may move the panels, so the answer is brought into view again after it.
   */
  const act = async (at: Place, action: () => Promise<string>) => {
    let seq: number;
    try {
      seq = say(at, 'info', await action());
    } catch (failure) {
      seq = say(at, 'error', describe(failure));
    }
    await refresh();
    setFeedback((current) => (current?.seq === seq ? { ...current, placed: current.placed + 1 } : current));
  };
  const saidAt = (at: Place) => <Said feedback={feedback?.at === at ? feedback : null} onDismiss={() => setFeedback(null)} />;

  return (
    <div class="supervisor">
      <h2 class="visually-hidden">Supervisor</h2>
      <div role="alert" class="message error">
        {error && (
          <p class="dismissable">
            <span>{error}</span>
            <button type="button" onClick={() => setError(null)}>
              Dismiss
            </button>
          </p>
        )}
      </div>
      {board ? (
        <div class="panels">
          <StatusCounts counts={board.statusCounts} />
          <WavesInProgress
            waves={board.waves}
            pickers={board.pickers}
            feedback={saidAt('waves')}
            onRelease={(wave) => act('waves', async () => (await api('POST', '/waves/{id}/release', { params: { id: wave.id } }), `${waveName(wave)} released: its unpicked orders are PENDING again.`))}
            onAssign={(wave, pickerId) =>
              act('waves', async () => {
                const assigned = await api('POST', '/waves/{id}/assign', { params: { id: wave.id }, body: { pickerId } });
                return `${waveName(assigned)} assigned to ${assigned.picker?.name ?? 'nobody'}.`;
              })
            }
          />
          <NextCarts plan={plan} />
          <SettingsPanel
            feedback={saidAt('settings')}
            onSave={(settings) => act('settings', async () => (await api('PUT', '/settings', { body: settings }), 'Settings saved: handhelds use them from their next screen.'))}
          />
          <Webhooks webhooks={board.webhooks} />
          <Issues issues={board.issues} />
          <SlotMismatches mismatches={board.slotMismatches} />
          <Replenishment
            replenishments={board.replenishments}
            feedback={saidAt('replenishment')}
            onPutBack={(task) =>
              act('replenishment', async () => (await api('POST', '/replenishments/{id}/put-back', { params: { id: task.id } }), `${task.productExternalId} to ${task.toLocationCode} is open for anyone again.`))
            }
          />
          <LowFaces lowFaces={board.lowFaces} />
          <ExpiringLots board={board} />
          <CreateWave feedback={saidAt('create')} onCreate={(body) => act('create', async () => describeWave(await api('POST', '/waves', { body })))} />
          <AdjustStock
            product={product}
            onProduct={setProduct}
            scans={scans}
            feedback={saidAt('stock')}
            onAdjust={(ref, body) =>
              act('stock', async () => {
                const adjusted = await api('POST', '/products/{ref}/stock', { params: { ref }, body });
                return `${adjusted.name} (${adjusted.sku}) now has ${adjusted.stock} in stock.`;
              })
            }
          />
        </div>
      ) : (
        !error && <p role="status">Loading the board…</p>
      )}
      {floor && (
        <section class="panel wide" aria-labelledby="plan-heading">
          <h3 id="plan-heading">Floor plan</h3>
          <FloorPlan floor={floor} />
        </section>
      )}
      <SlottingAdvice />
    </div>
  );
}

/**
 * What the last action of a panel did, where its control is, in live regions a screen reader
 * announces: a status for what was done, an alert for a refusal. Both are always there (empty
 * when there is nothing to say), so that a new message is announced; it is scrolled into view.
 * A refusal stays through the board's redraws until dismissed or replaced by the next action's answer.
 */
function Said({ feedback, onDismiss }: { feedback: Feedback | null; onDismiss(): void }) {
  const place = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (feedback) place.current?.scrollIntoView({ block: 'nearest' });
  }, [feedback?.seq, feedback?.placed]);
  return (
    <div ref={place} class="said">
      <p role="status" class="message info">
        {feedback?.kind === 'info' ? feedback.text : ''}
      </p>
      <div role="alert" class="message error">
        {feedback?.kind === 'error' && (
          <p class="dismissable">
            <span>{feedback.text}</span>
            <button type="button" onClick={onDismiss}>
              Dismiss
            </button>
          </p>
        )}
      </div>
    </div>
  );
}

/** No plan (null) while the warehouse has no layout (409): the floor plan says so already. */
const withoutLayout = (failure: unknown) => {
  if (failure instanceof ApiError && failure.status === 409) return null;
  throw failure;
};

const describeWave = (wave: PickerWave) =>
  `${waveName(wave)} created: ${plural(wave.orders.length, 'order')}, ${plural(wave.stops.length, 'stop')}, ${round(wave.distance)} to walk (S-shape would be ${round(wave.sShapeDistance)}).`;

/** The carts the next waves take (Create wave, Start picking), and what the plan walks against carts made one at a time. */
function NextCarts({ plan }: { plan: CartPlan | null }) {
  return (
    <section class="panel span-2" aria-labelledby="next-carts-heading">
      <h3 id="next-carts-heading">Next carts</h3>
      {!plan ? (
        <p>No plan until the warehouse has a layout.</p>
      ) : plan.carts.length === 0 ? (
        <p>No PENDING order is waiting for a cart.</p>
      ) : (
        <>
          <table aria-labelledby="next-carts-heading">
            <caption>
              {plan.carts.length > NEXT_CARTS ? `The first ${NEXT_CARTS} of ${plan.carts.length} carts` : plural(plan.carts.length, 'cart')} for{' '}
              {plural(plan.poolSize, 'PENDING order')}
            </caption>
            <thead>
              <tr>
                <th scope="col">Cart</th>
                <th scope="col">Orders</th>
                <th scope="col">Units</th>
                <th scope="col">Walk</th>
              </tr>
            </thead>
            <tbody>
              {plan.carts.slice(0, NEXT_CARTS).map((cart, index) => (
                <tr key={cart.orders[0]!.externalId}>
                  <th scope="row">{index + 1}</th>
                  <td>{cart.orders.map(orderLabel).join(', ')}</td>
                  <td>{cart.units}</td>
                  <td>{round(cart.distance)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p>
            Walk of the whole plan: {round(plan.distance)}
            {plan.greedyDistance === null ? '.' : ` (carts made one at a time: ${round(plan.greedyDistance)}).`}
            {plan.urgencyCost ? ` Urgent and sooner-due orders first cost ${round(plan.urgencyCost)} of it.` : ''}
          </p>
        </>
      )}
    </section>
  );
}

/** An order of the plan: its number, and its priority and due date when it has them. */
function orderLabel(order: CartPlan['carts'][number]['orders'][number]) {
  const urgency = [order.priority, order.dueDate && `due ${order.dueDate.slice(0, 10)}`].filter(Boolean).join(', ');
  return urgency ? `${order.orderNumber} (${urgency})` : order.orderNumber;
}

function StatusCounts({ counts }: { counts: Record<string, number> }) {
  const statuses = [...STATUSES, ...Object.keys(counts).filter((status) => !STATUSES.includes(status))];
  return (
    <section class="panel" aria-labelledby="status-heading">
      <h3 id="status-heading">Orders by status</h3>
      <dl class="counts">
        {statuses.map((status) => (
          <div key={status} class={`count status-${status}`}>
            <dt>{status.replace(/_/g, ' ').toLowerCase()}</dt>
            <dd>{counts[status] ?? 0}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

type WaveSummary = Board['waves'][number];

/** The waves being picked, one card each (a table would not fit a handheld): orders, progress, who, and the levers. */
function WavesInProgress({
  waves,
  pickers,
  feedback,
  onRelease,
  onAssign,
}: {
  waves: WaveSummary[];
  pickers: Board['pickers'];
  /** What Release or Assign did: under the heading, since a released wave's card is gone. */
  feedback: ComponentChildren;
  onRelease(wave: WaveSummary): void;
  onAssign(wave: WaveSummary, pickerId: string): void;
}) {
  const [releasing, setReleasing] = useState<string | null>(null);
  return (
    <section class="panel span-2" aria-labelledby="waves-heading">
      <h3 id="waves-heading">Waves in progress</h3>
      {feedback}
      {waves.length === 0 ? (
        <p>No wave is being picked.</p>
      ) : (
        <ul class="wave-list">
          {waves.map((wave) => (
            <li key={wave.id} class="wave-card">
              <h4>{waveLabel(wave)}</h4>
              <p>
                {plural(wave.orders, 'order')}: {wave.orderNumbers.join(', ')}
              </p>
              <p>
                Stops done: {wave.progress.stopsDone} of {wave.progress.stopsTotal} · distance left {round(wave.progress.distanceLeft)}
              </p>
              <PrintLink to={`/console/print/wave/${wave.id}`} label={`Print the pick list of ${waveName(wave)}`} />
              <AssignWave wave={wave} pickers={pickers} onAssign={onAssign} />
              {releasing === wave.id ? (
                <div class="confirm" role="group" aria-label={`Release ${waveName(wave)}?`}>
                  <p>Release {waveLabel(wave)}? Its orders not picked yet go back to PENDING; picks recorded are not applied.</p>
                  <div class="row">
                    <button
                      type="button"
                      class="primary"
                      onClick={() => {
                        setReleasing(null);
                        onRelease(wave);
                      }}
                    >
                      Yes, release
                    </button>
                    <button type="button" onClick={() => setReleasing(null)}>
                      Cancel
                    </button>
                  </div>
                </div>
              ) : (
                <button type="button" onClick={() => setReleasing(wave.id)} aria-label={`Release ${waveName(wave)}`}>
                  Release
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function AssignWave({ wave, pickers, onAssign }: { wave: WaveSummary; pickers: Board['pickers']; onAssign(wave: WaveSummary, pickerId: string): void }) {
  const id = `assign-${wave.id}`;
  const submit = (event: Event) => {
    event.preventDefault();
    const pickerId = String(new FormData(event.target as HTMLFormElement).get('picker') ?? '');
    if (pickerId) onAssign(wave, pickerId);
  };
  return (
    <form class="row assign" onSubmit={submit}>
      <label for={id} class="visually-hidden">
        Picker for {waveName(wave)}
      </label>
      <select id={id} name="picker" defaultValue={wave.picker?.id ?? ''}>
        <option value="">Choose a picker</option>
        {pickers.map((picker) => (
          <option key={picker.id} value={picker.id}>
            {picker.name}
          </option>
        ))}
      </select>
      <button type="submit" aria-label={`Assign ${waveName(wave)}`}>
        Assign
      </button>
    </form>
  );
}

/** The settings the panel shows as checkboxes: the yes-or-no ones. */
type Switch = { [K in keyof Settings]: Settings[K] extends boolean ? K : never }[keyof Settings];

const SETTINGS: { name: Switch; label: string; help?: string }[] = [
  { name: 'toteLabels', label: 'Label the totes at the start of each wave' },
  { name: 'confirmLocation', label: "Scan a stop's location before its products" },
  { name: 'packOnLastScan', label: "Mark an order packed on its last item's scan" },
  {
    name: 'pickFromReserve',
    label: 'Pick from reserve when the pick faces run short',
    help: 'On: pickers are sent to reserve for what the pick faces cannot cover. Off: such orders wait, and a replenishment of their face is made first in line.',
  },
];

function SettingsPanel({ feedback, onSave }: { feedback: ComponentChildren; onSave(settings: Settings): void }) {
  const [settings, setSettings] = useState<Settings | null>(null);
  useEffect(() => {
    api('GET', '/settings').then(setSettings, () => setSettings(null));
  }, []);
  const submit = (event: Event) => {
    event.preventDefault();
    if (settings) onSave(settings);
  };
  return (
    <section class="panel" aria-labelledby="settings-heading">
      <h3 id="settings-heading">Floor settings</h3>
      {settings ? (
        <form onSubmit={submit} class="stack">
          {SETTINGS.map((setting) => (
            <div key={setting.name}>
              <label class="check">
                <input
                  type="checkbox"
                  checked={settings[setting.name]}
                  aria-describedby={setting.help ? `${setting.name}-help` : undefined}
                  onChange={(event) => setSettings({ ...settings, [setting.name]: (event.target as HTMLInputElement).checked })}
                />
                {setting.label}
              </label>
              {setting.help && (
                <p id={`${setting.name}-help`} class="muted">
                  {setting.help}
                </p>
              )}
            </div>
          ))}
          <button type="submit" class="primary">
            Save settings
          </button>
          {feedback}
        </form>
      ) : (
        <p role="status">Loading the settings…</p>
      )}
    </section>
  );
}

/** Products whose slots hold other than their stock: someone should count them. */
function SlotMismatches({ mismatches }: { mismatches: Board['slotMismatches'] }) {
  return (
    <section class="panel span-2" aria-labelledby="mismatches-heading">
      <h3 id="mismatches-heading">Slots that disagree with stock</h3>
      {mismatches.total === 0 ? (
        <p>Every product's slots hold its stock.</p>
      ) : (
        <table aria-labelledby="mismatches-heading">
          {mismatches.total > mismatches.products.length && (
            <caption>
              The first {mismatches.products.length} of {mismatches.total}
            </caption>
          )}
          <thead>
            <tr>
              <th scope="col">Product</th>
              <th scope="col">Stock</th>
              <th scope="col">In slots</th>
            </tr>
          </thead>
          <tbody>
            {mismatches.products.map((product) => (
              <tr key={product.productExternalId}>
                <th scope="row">
                  {product.productExternalId} ({product.sku})
                </th>
                <td>{product.stock}</td>
                <td>{product.inSlots}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

type ReplenishmentTask = Board['replenishments']['tasks'][number];

/** The open replenishment tasks, first in line, and who has each in hand; a task left in hand can be put back. */
function Replenishment({ replenishments, feedback, onPutBack }: { replenishments: Board['replenishments']; feedback: ComponentChildren; onPutBack(task: ReplenishmentTask): void }) {
  return (
    <section class="panel span-2" aria-labelledby="replenishment-heading">
      <h3 id="replenishment-heading">Replenishment</h3>
      {feedback}
      {replenishments.total === 0 ? (
        <p>No replenishment task is open.</p>
      ) : (
        <table aria-labelledby="replenishment-heading">
          <caption>
            {replenishments.total > replenishments.tasks.length
              ? `The first ${replenishments.tasks.length} of ${replenishments.total} open tasks, first in line`
              : `${plural(replenishments.total, 'open task')}, first in line`}
          </caption>
          <thead>
            <tr>
              <th scope="col">Product</th>
              <th scope="col">From → to</th>
              <th scope="col">Units</th>
              <th scope="col">Why</th>
              <th scope="col">In hand</th>
            </tr>
          </thead>
          <tbody>
            {replenishments.tasks.map((task) => (
              <tr key={task.id}>
                <th scope="row">
                  {task.productExternalId} ({task.sku})
                </th>
                <td>
                  {task.fromLocationCode} → {task.toLocationCode}
                </td>
                <td>{task.quantity}</td>
                <td>{REASONS[task.reason]}</td>
                <td>
                  {task.status === 'IN_PROGRESS' ? (
                    <>
                      {task.doneBy}{' '}
                      <button type="button" onClick={() => onPutBack(task)} aria-label={`Put back ${task.productExternalId} to ${task.toLocationCode}, held by ${task.doneBy}`}>
                        Put back
                      </button>
                    </>
                  ) : (
                    'nobody yet'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Pick faces at or below their min: a task is open for each, unless its reserve is empty. */
function LowFaces({ lowFaces }: { lowFaces: Board['lowFaces'] }) {
  return (
    <section class="panel span-2" aria-labelledby="low-faces-heading">
      <h3 id="low-faces-heading">Pick faces at or below their min</h3>
      {lowFaces.total === 0 ? (
        <p>Every pick face holds more than its min.</p>
      ) : (
        <table aria-labelledby="low-faces-heading">
          {lowFaces.total > lowFaces.faces.length && (
            <caption>
              The {lowFaces.faces.length} emptiest of {lowFaces.total}
            </caption>
          )}
          <thead>
            <tr>
              <th scope="col">Product</th>
              <th scope="col">Face</th>
              <th scope="col">Holds</th>
              <th scope="col">Min / max</th>
              <th scope="col">Task</th>
            </tr>
          </thead>
          <tbody>
            {lowFaces.faces.map((face) => (
              <tr key={`${face.productExternalId}@${face.locationCode}`}>
                <th scope="row">
                  {face.productExternalId} ({face.sku})
                </th>
                <td>{face.locationCode}</td>
                <td>{face.quantity}</td>
                <td>
                  {face.min} / {face.max}
                </td>
                <td>{face.replenishing ? 'open' : 'none open'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The periods the lots table offers, in days; 30 first shown, as GET /lots of the warehouse API defaults. */
const EXPIRY_PERIODS = [7, 14, 30, 60, 90, 180, 365];
/** How many lots the table reads at a time, the soonest first; "Show more lots" reads the next page. */
const EXPIRING_PAGE = 100;

/** The lots shown and the cursor of the page after them (null when they are all). */
type ExpiringShown = { lots: ExpiringLot[]; next: string | null };

/** A page of the lots expiring within `days`: the first, or the one `cursor` points at. */
const expiringPage = (days: number, cursor: string | null) =>
  apiPage('GET', '/lots', { query: { expiringWithinDays: days, limit: EXPIRING_PAGE, ...(cursor ? { cursor } : {}) } });

/** Reads the lots expiring within `days`, as many pages as `pages`. */
async function readExpiring(days: number, pages: number): Promise<ExpiringShown> {
  const shown: ExpiringShown = { lots: [], next: null };
  for (let read = 0; read < pages && (read === 0 || shown.next); read++) {
    const page = await expiringPage(days, shown.next);
    shown.lots.push(...page.data);
    shown.next = page.nextCursor;
  }
  return shown;
}

/**
 * The lots at the slots that expire within the period chosen, soonest first, those already
 * expired marked: what to sell off, move to the front or throw away. Read again with the board,
 * as many pages as were shown (a refresh does not fold away the lots asked for).
 */
function ExpiringLots({ board }: { board: Board }) {
  const [days, setDays] = useState(30);
  const [shown, setShown] = useState<ExpiringShown | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pages = useRef(1);
  const latest = useRef(0);
  /** Shows what `read` answers unless a later read started meanwhile (its answer stands instead). */
  const show = (read: Promise<(before: ExpiringShown | null) => ExpiringShown>) => {
    const mine = ++latest.current;
    read.then(
      (update) => {
        if (mine !== latest.current) return;
        setShown(update);
        setError(null);
      },
      (failure: unknown) => mine === latest.current && setError(describe(failure)),
    );
  };
  useEffect(() => show(readExpiring(days, pages.current).then((read) => () => read)), [days, board]);
  const showMore = (cursor: string) => {
    pages.current += 1;
    show(expiringPage(days, cursor).then((page) => (before) => ({ lots: [...(before?.lots ?? []), ...page.data], next: page.nextCursor })));
  };
  const chooseDays = (chosen: number) => {
    pages.current = 1;
    setDays(chosen);
  };
  const lots = shown?.lots ?? null;
  const today = new Date().toISOString().slice(0, 10);
  return (
    <section class="panel span-2" aria-labelledby="expiring-heading">
      <h3 id="expiring-heading">Lots expiring</h3>
      <label for="expiring-days">Expiring within</label>{' '}
      <select id="expiring-days" value={days} onChange={(event) => chooseDays(Number((event.target as HTMLSelectElement).value))}>
        {EXPIRY_PERIODS.map((period) => (
          <option key={period} value={period}>
            {plural(period, 'day')}
          </option>
        ))}
      </select>
      {error && <p role="alert">{error}</p>}
      {lots === null ? (
        !error && <p role="status">Loading the lots…</p>
      ) : lots.length === 0 ? (
        <p>No lot expires within {plural(days, 'day')}.</p>
      ) : (
        <table aria-labelledby="expiring-heading">
          {(shown?.next || lots.length > EXPIRING_PAGE) && <caption>{shown?.next ? `The ${lots.length} soonest shown` : `All ${lots.length} shown`}</caption>}
          <thead>
            <tr>
              <th scope="col">Product</th>
              <th scope="col">Lot</th>
              <th scope="col">Expires</th>
              <th scope="col">Quantity</th>
              <th scope="col">Locations</th>
            </tr>
          </thead>
          <tbody>
            {lots.map((lot) => (
              <tr key={`${lot.productExternalId}:${lot.lot}`} class={lot.expiresOn < today ? 'expired' : ''}>
                <th scope="row">
                  {lot.productExternalId} ({lot.sku})
                </th>
                <td>{lot.lot}</td>
                <td>
                  {lot.expiresOn}
                  {lot.expiresOn < today && <strong> expired</strong>}
                </td>
                <td>{lot.quantity}</td>
                <td>{lot.locationCodes.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {shown?.next && (
        <button type="button" onClick={() => showMore(shown.next!)}>
          Show more lots
        </button>
      )}
    </section>
  );
}

function Issues({ issues }: { issues: Board['issues'] }) {
  return (
    <section class="panel span-2" aria-labelledby="issues-heading">
      <h3 id="issues-heading">Orders with issues</h3>
      {issues.length === 0 ? (
        <p>No order has an issue.</p>
      ) : (
        <ul class="issues">
          {issues.map((order) => (
            <li key={order.externalId}>
              <strong>Order {order.orderNumber}</strong> ({order.status}):{' '}
              {order.issues.map((issue) => issue.message).join('; ')}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Webhooks({ webhooks }: { webhooks: Board['webhooks'] }) {
  return (
    <section class="panel" aria-labelledby="webhooks-heading">
      <h3 id="webhooks-heading">Webhooks</h3>
      <p>
        Dead letters waiting: <strong>{webhooks.deadLetters}</strong>
      </p>
      {webhooks.failing.length === 0 ? (
        <p>No webhook is failing.</p>
      ) : (
        <ul>
          {webhooks.failing.map((hook) => (
            <li key={hook.id}>
              <span class="url">{hook.url}</span>
              {hook.consecutiveFailures !== undefined && `: ${hook.consecutiveFailures} failures in a row`}
              {hook.lastError && ` (last: ${hook.lastError})`}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function CreateWave({ feedback, onCreate }: { feedback: ComponentChildren; onCreate(body: BodyOf<'/waves', 'POST'>): void }) {
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    // The select offers the policies only.
    const body: BodyOf<'/waves', 'POST'> = { policy: form.get('policy') as BodyOf<'/waves', 'POST'>['policy'] };
    for (const field of ['maxOrders', 'maxItems'] as const) {
      const value = String(form.get(field) ?? '').trim();
      if (value) body[field] = Number(value);
    }
    onCreate(body);
  };
  return (
    <section class="panel" aria-labelledby="create-heading">
      <h3 id="create-heading">Create a wave</h3>
      <form onSubmit={submit} class="stack">
        <label for="max-orders">Max orders</label>
        <input id="max-orders" name="maxOrders" type="number" min={1} placeholder="8" />
        <label for="max-items">Max items</label>
        <input id="max-items" name="maxItems" type="number" min={1} placeholder="40" />
        <label for="policy">Routing policy</label>
        <select id="policy" name="policy">
          {/* optimal, the service's default, first */}
          {[...POLICIES].reverse().map((policy) => (
            <option key={policy} value={policy}>
              {policy}
            </option>
          ))}
        </select>
        <button type="submit" class="primary">
          Create wave
        </button>
        {feedback}
      </form>
    </section>
  );
}

interface AdjustStockProps {
  /** The product field: its sku, reference or barcode, typed or scanned. */
  product: string;
  onProduct(product: string): void;
  /** Scans so far: each moves the focus on to Amount. */
  scans: number;
  feedback: ComponentChildren;
  onAdjust(ref: string, body: { stock: number } | { delta: number }): void;
}

function AdjustStock({ product, onProduct, scans, feedback, onAdjust }: AdjustStockProps) {
  const amount = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (scans > 0) amount.current?.focus();
  }, [scans]);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const value = Number(form.get('amount'));
    onAdjust(product.trim(), form.get('mode') === 'delta' ? { delta: value } : { stock: value });
  };
  return (
    <section class="panel" aria-labelledby="stock-heading">
      <h3 id="stock-heading">Adjust stock</h3>
      <form onSubmit={submit} class="stack">
        <label for="stock-product">Product</label>
        <input
          id="stock-product"
          name="product"
          required
          autocomplete="off"
          autocapitalize="off"
          spellcheck={false}
          aria-describedby="stock-product-help"
          value={product}
          onInput={(event) => onProduct((event.target as HTMLInputElement).value)}
        />
        <p id="stock-product-help" class="muted">
          Its sku or reference, or scan its barcode.
        </p>
        <fieldset>
          <legend>Change</legend>
          <label class="radio">
            <input type="radio" name="mode" value="stock" defaultChecked /> Set stock to
          </label>
          <label class="radio">
            <input type="radio" name="mode" value="delta" /> Add (negative removes)
          </label>
        </fieldset>
        <label for="stock-amount">Amount</label>
        <input id="stock-amount" ref={amount} name="amount" type="number" required step={1} />
        <button type="submit" class="primary">
          Adjust stock
        </button>
        {feedback}
      </form>
    </section>
  );
}
