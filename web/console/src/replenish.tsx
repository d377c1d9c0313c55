import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, describe, type Trip, type TripTask } from './api';
import { sameCode } from './bursts';
import { accepted, rejected } from './feedback';
import { MessageLine, ScanField, type Message, type ScanRef } from './scan-field';
import { useScanner } from './scanner';
import { plural } from './text';

/** Why a task was made, in the floor's words. */
export const REASONS: Record<TripTask['reason'], string> = {
  DEMAND: 'orders wait for it',
  SHORT: 'a short pick emptied the face',
  MIN: 'top-up: the face is at its min',
};

/** Where the task in hand stands: at the reserve (scan it), taking units (scan each), at the face (scan it to finish). */
type Step = 'reserve' | 'units';
interface Progress {
  taskId: string;
  step: Step;
  count: number;
}

/** The task in hand's progress on this device, kept through a reload. */
const PROGRESS_KEY = 'pickport.replenishing';
function storedProgress(taskId: string): Progress {
  try {
    const stored = JSON.parse(sessionStorage.getItem(PROGRESS_KEY) ?? 'null') as Progress | null;
    if (stored?.taskId === taskId && (stored.step === 'reserve' || stored.step === 'units') && Number.isInteger(stored.count)) return stored;
  } catch {
    // A value this screen did not write: start the task over.
  }
  return { taskId, step: 'reserve', count: 0 };
}

const productOf = (task: TripTask) => `${task.name} (${task.barcode ? `${task.barcode} or ` : ''}${task.sku})`;
const isProduct = (task: TripTask, code: string) => sameCode(task.barcode, code) || sameCode(task.sku, code);

/**
 * The replenishment screen (pickers and supervisors): the next trip's tasks in walking order.
 * Take one, then scan its reserve location, each unit of the product (or type how many), and its
 * pick face: that completes it with the units counted. One task is in hand at a time.
 */
export function Replenish() {
  const [trip, setTrip] = useState<Trip | null>(null);
  /** What the last action of the list (Take) did, said under its heading. */
  const [listMessage, setListMessage] = useState<Message>(null);
  /** What the last scan or action on the task in hand did, said on its card. */
  const [message, setMessage] = useState<Message>(null);
  const [busy, setBusy] = useState(false);
  const cardScan = useRef<((code: string) => void) | null>(null);

  const load = useCallback(async () => {
    try {
      setTrip(await api('GET', '/replenishments/trip'));
    } catch (error) {
      setListMessage({ kind: 'error', text: describe(error) });
    }
  }, []);
  useEffect(() => void load(), [load]);

  const inHand = trip?.tasks[0]?.status === 'IN_PROGRESS' ? trip.tasks[0] : null;
  useScanner((code) => {
    if (inHand) return cardScan.current?.(code);
    rejected();
    setListMessage({ kind: 'error', text: `Scan not needed: ${code}. Take a task first.` });
  });

  /** Runs an action on a task, says how it went (`say`), and reloads the trip. */
  const act = async (say: (message: Message) => void, action: () => Promise<string>) => {
    setBusy(true);
    try {
      const text = await action();
      accepted();
      say({ kind: 'info', text });
    } catch (error) {
      rejected();
      say({ kind: 'error', text: describe(error) });
    } finally {
      setBusy(false);
      await load();
    }
  };

  const take = (task: TripTask) =>
    act(
      (said) => (said?.kind === 'error' ? setListMessage(said) : (setListMessage(null), setMessage(said))),
      async () => {
        await api('POST', '/replenishments/{id}/take', { params: { id: task.id } });
        return `Task taken: go to ${task.fromLocationCode} and scan it.`;
      },
    );

  if (!trip) {
    return (
      <section class="replenish">
        <MessageLine message={listMessage} />
        {!listMessage && <p role="status">Loading the tasks…</p>}
      </section>
    );
  }
  const next = trip.tasks.filter((task) => task !== inHand);
  return (
    <section class="replenish" aria-labelledby="replenish-heading">
      <h2 id="replenish-heading" class="visually-hidden">
        Replenish
      </h2>
      {inHand && (
        <TaskCard
          key={inHand.id}
          task={inHand}
          busy={busy}
          scanRef={cardScan}
          message={message}
          setMessage={setMessage}
          onComplete={(quantity) =>
            act(setMessage, async () => {
              sessionStorage.removeItem(PROGRESS_KEY);
              await api('POST', '/replenishments/{id}/complete', { params: { id: inHand.id }, body: { quantity } });
              return `Moved ${quantity} × ${inHand.name} from ${inHand.fromLocationCode} to ${inHand.toLocationCode}.`;
            })
          }
          onPutBack={() =>
            act(setMessage, async () => {
              sessionStorage.removeItem(PROGRESS_KEY);
              await api('POST', '/replenishments/{id}/put-back', { params: { id: inHand.id } });
              return `Put back: ${inHand.name} to ${inHand.toLocationCode} is open for anyone again.`;
            })
          }
          onCancel={() =>
            act(setMessage, async () => {
              sessionStorage.removeItem(PROGRESS_KEY);
              await api('POST', '/replenishments/{id}/cancel', { params: { id: inHand.id } });
              return `Cancelled: ${inHand.name} to ${inHand.toLocationCode}. Nothing moved.`;
            })
          }
        />
      )}
      {!inHand && <MessageLine message={message} />}
      <section aria-labelledby="next-tasks-heading" class="next-tasks">
        <h2 id="next-tasks-heading">{inHand ? 'Then' : 'Tasks in walking order'}</h2>
        <MessageLine message={listMessage} />
        {next.length === 0 ? (
          <p>{inHand ? 'No other task is open.' : 'No replenishment task is open.'}</p>
        ) : (
          <ol class="task-list">
            {next.map((task) => (
              <li key={task.id} class="task">
                <TaskLines task={task} />
                {!inHand && (
                  <button type="button" class="primary" disabled={busy} onClick={() => void take(task)} aria-label={`Take ${task.name}, ${task.fromLocationCode} to ${task.toLocationCode}`}>
                    Take
                  </button>
                )}
              </li>
            ))}
          </ol>
        )}
        <p class="muted">
          {trip.distance === null
            ? 'In line order: the warehouse has no layout yet.'
            : `Walk: ${Math.round(trip.distance * 10) / 10}${trip.exact ? ', the shortest order' : ', in line order (the planner was busy)'}.`}
          {trip.waiting > 0 && ` ${plural(trip.waiting, 'more task')} after this trip.`}
        </p>
      </section>
    </section>
  );
}

/** What a task asks: the product (and the lot to move), from where to where, how many, and why. */
function TaskLines({ task }: { task: TripTask }) {
  return (
    <div class="line">
      <p class="product-name">{task.name}</p>
      <p class="sku">
        SKU {task.sku}
        {task.barcode ? ` · barcode ${task.barcode}` : ''}
        {task.lot === null ? '' : ` · lot ${task.lot}${task.expiresOn === null ? '' : `, expires ${task.expiresOn}`}`}
      </p>
      <p>
        From <strong>{task.fromLocationCode}</strong> to <strong>{task.toLocationCode}</strong>: <strong>{task.quantity}</strong> units
      </p>
      <p class="muted">Why: {REASONS[task.reason]}</p>
    </div>
  );
}

interface CardProps {
  task: TripTask;
  busy: boolean;
  scanRef: ScanRef;
  message: Message;
  setMessage(message: Message): void;
  onComplete(quantity: number): Promise<void>;
  onPutBack(): Promise<void>;
  onCancel(): Promise<void>;
}

/**
 * The task in hand: scan the reserve location, then each unit (or type how many in Quantity), then
 * the pick face, which completes the task with the units counted.
 */
function TaskCard({ task, busy, scanRef, message, setMessage, onComplete, onPutBack, onCancel }: CardProps) {
  // A ref as well as state: two scans may arrive before the screen redraws.
  const progress = useRef(storedProgress(task.id));
  const [, redraw] = useState(0);
  const [quantity, setQuantity] = useState(String(progress.current.count));
  const [cancelling, setCancelling] = useState(false);
  const { step, count } = progress.current;

  const moveTo = (next: Progress) => {
    progress.current = next;
    sessionStorage.setItem(PROGRESS_KEY, JSON.stringify(next));
    setQuantity(String(next.count));
    redraw((n) => n + 1);
  };
  const wrong = (text: string) => {
    rejected();
    setMessage({ kind: 'error', text });
  };
  const countTo = (next: number) => {
    moveTo({ taskId: task.id, step: 'units', count: next });
    accepted();
    setMessage({ kind: 'info', text: `Counted ${next} of ${task.quantity} × ${task.name}. Scan ${task.toLocationCode} when they are on the cart.` });
  };

  const onScan = (code: string) => {
    if (!code || busy) return;
    if (step === 'reserve') {
      if (!sameCode(task.fromLocationCode, code)) return wrong(`Wrong scan: ${code}. Expected reserve location ${task.fromLocationCode}.`);
      moveTo({ taskId: task.id, step: 'units', count: 0 });
      accepted();
      return setMessage({ kind: 'info', text: `Location ${task.fromLocationCode} confirmed. Scan each unit of ${task.name}.` });
    }
    if (isProduct(task, code)) return countTo(progress.current.count + 1);
    if (sameCode(task.toLocationCode, code)) {
      if (progress.current.count < 1) return wrong(`Nothing counted yet: scan each unit of ${task.name} before ${task.toLocationCode}.`);
      return void onComplete(progress.current.count);
    }
    if (sameCode(task.fromLocationCode, code)) return setMessage({ kind: 'info', text: `At ${task.fromLocationCode}. Scan each unit of ${task.name}.` });
    wrong(`Wrong scan: ${code}. Expected ${productOf(task)} or pick location ${task.toLocationCode}.`);
  };
  scanRef.current = onScan;

  /** Quantity, typed and sent with Enter: the count at once (a full case). */
  const setByHand = (event: Event) => {
    event.preventDefault();
    const next = Number(quantity);
    if (step === 'reserve') return wrong(`Scan reserve location ${task.fromLocationCode} first.`);
    if (!Number.isInteger(next) || next < 1) return wrong('Quantity must be a whole number of 1 or more.');
    countTo(next);
  };

  const atReserve = step === 'reserve';
  return (
    <article class="stop" aria-labelledby="task-location">
      <p class="stop-label">{atReserve ? 'Go to reserve location' : count === 0 ? 'Take from reserve' : 'Put away at pick location'}</p>
      <h2 id="task-location" class="location">
        {atReserve || count === 0 ? task.fromLocationCode : task.toLocationCode}
      </h2>
      <TaskLines task={task} />
      <p class="unit-count">
        <span class="visually-hidden">Counted: </span>
        <strong>
          {count} of {task.quantity}
        </strong>
      </p>
      <ScanField onScan={onScan} />
      <MessageLine message={message} />
      <form class="pick-controls" onSubmit={setByHand}>
        <label for="quantity">Quantity</label>
        <input id="quantity" type="number" inputMode="numeric" min={1} value={quantity} onInput={(event) => setQuantity((event.target as HTMLInputElement).value)} />
        <button type="submit" class="big">
          Set count
        </button>
      </form>
      <div class="row task-levers">
        <button type="button" disabled={busy} onClick={() => void onPutBack()}>
          Put back
        </button>
        <button type="button" disabled={busy} aria-expanded={cancelling} aria-controls="cancel-task" onClick={() => setCancelling(!cancelling)}>
          Cancel task
        </button>
      </div>
      {cancelling && (
        <div id="cancel-task" class="confirm" role="group" aria-label="Cancel this task?">
          <p>Cancel the task? Nothing moves, and nobody is asked to do it any more.</p>
          <button type="button" class="primary" disabled={busy} onClick={() => void onCancel()}>
            Yes, cancel the task
          </button>
        </div>
      )}
    </article>
  );
}
