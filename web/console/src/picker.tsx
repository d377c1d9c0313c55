import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, describe, isNetworkFailure, type PickBody, type PickerWave, type ShortReason, type WaveLine } from './api';
import { accepted, rejected } from './feedback';
import { quantityText, readScan } from '../../../src/catalog/scan';
import { firstTakeableDay, lotInPlaceProblem, lotText } from '../../../src/floor/plan/fefo';
import { allRecorded, isLocation, lineOfPick, lineScanned, nextVisit, pendingLines, pickAt, productLabel, shortPickGoesOn, totesFor, totesToLabel, withPicks, type Visit } from './picking';
import { PickQueue } from './queue';
import { MessageLine, ScanField, type Message, type ScanRef } from './scan-field';
import { useScanner } from './scanner';
import { useSettings } from './settings';
import { plural, waveName } from './text';

const REASONS: { value: ShortReason; label: string }[] = [
  { value: 'not_found', label: 'Not found' },
  { value: 'damaged', label: 'Damaged' },
  { value: 'other', label: 'Other' },
];

/** How often queued picks are tried again while the network seems down. */
const RETRY_MS = 3_000;

/**
 * A pick stays queued through a lost network, a service that is restarting or busy, and a session
 * that ended (it is sent once the picker signs in again); any other refusal is final.
 */
const worthRetrying = (error: unknown) =>
  isNetworkFailure(error) || (error instanceof ApiError && (error.status === 401 || error.status === 429 || error.status >= 500));

const confirmedKey = (waveId: string) => `pickport.confirmed-location.${waveId}`;
/** The units of the line in hand counted so far, kept through a reload. */
const countKey = (waveId: string) => `pickport.counted.${waveId}`;
/** A line's part at one stop: a line split over slots has a part at each of its stops, and one per lot at a stop of several. */
const lineKeyOf = (line: WaveLine, locationCode: string | null) => `${line.orderExternalId}:${line.productExternalId}@${locationCode ?? ''}:${line.lot ?? ''}`;

/** Why the service refused a pick, as the picker reads it: a lot taken in place of the part's is named with the lot to take. */
function refusalText(pick: PickBody, line: WaveLine | null, error: unknown): string {
  const wrongLot = error instanceof ApiError && error.details.some((detail) => detail.field === 'pickedLot');
  if (wrongLot && line?.lot) return `Wrong lot: ${pick.pickedLot}. Take ${lotText(line.lot, line.expiresOn)}.`;
  return `A pick of ${pick.productExternalId} was not recorded: ${describe(error)}`;
}

/**
 * The handheld screen: the totes' labels first (when the warehouse uses them), then one stop at a
 * time, driven by a keyboard-wedge scanner (scanner.ts). Every pick goes through the offline
 * queue, so picks reach the service in the order they were made, whether or not the network was
 * there at the time.
 */
export function Picker() {
  const [server, setServer] = useState<PickerWave | null | undefined>(undefined);
  const [pending, setPending] = useState<PickBody[]>([]);
  const [finished, setFinished] = useState<PickerWave | null>(null);
  const [confirmed, setConfirmed] = useState<string | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const [busy, setBusy] = useState(false);
  /** Picks refused for good: the line in hand is counted again from 0. */
  const [refusals, setRefusals] = useState(0);
  const settings = useSettings();
  const queue = useMemo(() => (server ? new PickQueue(server.id) : null), [server?.id]);
  const flushing = useRef(false);
  /** The wave as the service last answered it: what a refused pick is explained against. */
  const answered = useRef(server);
  answered.current = server;

  const wave = server ? withPicks(server, pending) : server;
  const visit = wave ? nextVisit(wave) : null;
  const unlabelled = wave && settings?.toteLabels ? totesToLabel(wave) : [];
  /** What a scan means on the card on show (set by it); without one the screen says what it wants instead. */
  const cardScan = useRef<((code: string) => void) | null>(null);

  useScanner((code) => {
    if (wave && (unlabelled.length > 0 || visit)) return cardScan.current?.(code);
    rejected();
    setMessage({ kind: 'error', text: wave ? `Scan not needed: ${code}. Every line is recorded; finish the wave.` : `Scan not needed: ${code}. Press Start picking first.` });
  });

  const load = useCallback(async () => {
    try {
      const current = await api('GET', '/picking/wave');
      setServer(current);
      setConfirmed(current ? sessionStorage.getItem(confirmedKey(current.id)) : null);
      const dropped = PickQueue.dropAllBut(current?.id ?? null);
      if (dropped > 0) {
        setMessage({ kind: 'error', text: `${plural(dropped, 'pick')} kept on this device for a wave finished or released elsewhere were dropped.` });
      }
    } catch (error) {
      setMessage({ kind: 'error', text: describe(error) });
      setServer((known) => known ?? null);
    }
  }, []);
  useEffect(() => void load(), [load]);

  /** Sends queued picks, oldest first, until the queue is empty or the network fails again. */
  const flush = useCallback(async () => {
    if (!queue || flushing.current) return;
    flushing.current = true;
    try {
      for (let pick = queue.all()[0]; pick; pick = queue.all()[0]) {
        try {
          const answered = await api('POST', '/picking/wave/picks', { body: pick });
          setServer(answered);
          queue.shift();
          const goesOn = shortPickGoesOn(answered, pick);
          if (goesOn) {
            setMessage({ kind: 'info', text: `Short pick recorded. ${goesOn.line.name} goes on at ${goesOn.next.locationCode}: ${goesOn.next.quantity} more, a stop of your route.` });
          }
        } catch (error) {
          if (worthRetrying(error)) break;
          // Refused for good (the wave was released, a rule changed, a lot first expiry first out does not allow): drop it and say so.
          queue.shift();
          rejected();
          setRefusals((count) => count + 1);
          setMessage({ kind: 'error', text: refusalText(pick, answered.current ? lineOfPick(answered.current, pick) : null, error) });
          if (error instanceof ApiError && error.status === 404) await load();
        }
      }
    } finally {
      flushing.current = false;
      setPending(queue.all());
    }
  }, [queue, load]);

  useEffect(() => {
    if (!queue) return;
    setPending(queue.all());
    void flush();
    const retry = setInterval(() => queue.all().length > 0 && void flush(), RETRY_MS);
    const online = () => void flush();
    window.addEventListener('online', online);
    return () => {
      clearInterval(retry);
      window.removeEventListener('online', online);
    };
  }, [queue, flush]);

  const record = (pick: PickBody) => {
    queue?.push(pick);
    setPending(queue?.all() ?? []);
    void flush();
  };

  const confirm = (code: string | null) => {
    setConfirmed(code);
    if (server && code) sessionStorage.setItem(confirmedKey(server.id), code);
  };

  const start = async () => {
    setBusy(true);
    setMessage(null);
    setFinished(null);
    try {
      const started = await api('POST', '/picking/wave', { body: {} });
      setServer(started);
      setConfirmed(sessionStorage.getItem(confirmedKey(started.id)));
    } catch (error) {
      setMessage({ kind: 'error', text: error instanceof ApiError && error.code === 'NOTHING_TO_PICK' ? 'Nothing to pick right now: no order is waiting.' : describe(error) });
    } finally {
      setBusy(false);
    }
  };

  const finish = async () => {
    if (!server) return;
    setBusy(true);
    try {
      const done = await api('POST', '/picking/wave/complete');
      sessionStorage.removeItem(confirmedKey(server.id));
      sessionStorage.removeItem(countKey(server.id));
      setFinished(done);
      setServer(null);
      setMessage(null);
    } catch (error) {
      setMessage({ kind: 'error', text: describe(error) });
    } finally {
      setBusy(false);
    }
  };

  const bindLabel = async (label: string) => {
    try {
      setServer(await api('POST', '/picking/wave/totes', { body: { label } }));
      accepted();
      setMessage({ kind: 'info', text: `Label ${label} is on tote ${unlabelled[0]?.tote}.` });
    } catch (error) {
      rejected();
      setMessage({ kind: 'error', text: `Label ${label} refused: ${describe(error)}` });
    }
  };

  if (wave === undefined || settings === null) return <p role="status">Loading your wave…</p>;

  if (wave === null) {
    return (
      <section aria-labelledby="start-heading" class="picker-start">
        <h2 id="start-heading">{finished ? 'Wave finished' : 'No wave in hand'}</h2>
        {finished && (
          <p role="status">
            {waveName(finished)}: {finished.orders.length} {finished.orders.length === 1 ? 'order' : 'orders'} picked ({finished.orders.map((order) => order.orderNumber).join(', ')}). Take the cart to packing.
          </p>
        )}
        <MessageLine message={message} />
        <button type="button" class="primary big" onClick={start} disabled={busy}>
          Start picking
        </button>
      </section>
    );
  }

  const line = visit ? (pendingLines(visit)[0] as WaveLine) : null;
  return (
    <section aria-label={`Picking ${waveName(wave)}`} class="picker">
      <OfflineBanner waiting={pending.length} />
      {unlabelled.length > 0 ? (
        <LabelTotes wave={wave} unlabelled={unlabelled} onLabel={bindLabel} scanRef={cardScan} message={message} />
      ) : visit && line ? (
        <VisitCard
          key={`${wave.id}:${lineKeyOf(line, visit.locationCode)}:${refusals}`}
          waveId={wave.id}
          visit={visit}
          line={line}
          confirmed={visit.locationCode === null || !settings.confirmLocation || confirmed === visit.locationCode}
          onConfirm={() => confirm(visit.locationCode)}
          onPick={record}
          scanRef={cardScan}
          message={message}
          setMessage={setMessage}
          firstDay={firstTakeableDay(new Date(), settings.minShelfLifeDays)}
        />
      ) : (
        <AllPicked wave={wave} waiting={pending.length} busy={busy} onFinish={finish} message={message} />
      )}
      <WaveProgress wave={wave} />
    </section>
  );
}

/**
 * Plain to see from arm's length: picks are waiting on this device, and how many. They are sent on
 * their own once the network is back.
 */
function OfflineBanner({ waiting }: { waiting: number }) {
  const [online, setOnline] = useState(navigator.onLine);
  useEffect(() => {
    const update = () => setOnline(navigator.onLine);
    addEventListener('online', update);
    addEventListener('offline', update);
    return () => {
      removeEventListener('online', update);
      removeEventListener('offline', update);
    };
  }, []);
  // Always rendered, so a screen reader announces the banner when it appears.
  return (
    <p role="status" class={waiting > 0 || !online ? 'offline-banner' : 'visually-hidden'}>
      {waiting > 0 || !online ? `${online ? 'Sending' : 'Offline'}: ${plural(waiting, 'pick')} not sent yet, kept on this device until the network is back` : ''}
    </p>
  );
}

/** Before the first pick, with tote labels on: each scan puts a label on the next tote. */
function LabelTotes({ wave, unlabelled, onLabel, scanRef, message }: { wave: PickerWave; unlabelled: PickerWave['orders']; onLabel(label: string): Promise<void>; scanRef: ScanRef; message: Message }) {
  const labels = new Map(wave.toteLabels.map((tote) => [tote.tote, tote.label]));
  const onScan = (code: string) => {
    if (code) void onLabel(code);
  };
  scanRef.current = onScan;
  return (
    <article class="stop" aria-labelledby="label-heading">
      <h2 id="label-heading">Label the totes</h2>
      <p>
        Scan a label for tote <strong>{unlabelled[0]?.tote}</strong>: any code the tote carries. {plural(unlabelled.length, 'tote')} to go.
      </p>
      <ScanField onScan={onScan} />
      <MessageLine message={message} />
      <ul class="totes" aria-label="Totes of this wave">
        {wave.orders.map((order) => (
          <li key={order.tote} class={labels.has(order.tote) ? 'done' : ''}>
            Tote {order.tote}: {labels.get(order.tote) ?? 'no label yet'}
          </li>
        ))}
      </ul>
    </article>
  );
}

interface VisitProps {
  waveId: string;
  visit: Visit;
  /** The line in hand: the visit's first line not recorded yet. */
  line: WaveLine;
  confirmed: boolean;
  onConfirm(): void;
  onPick(pick: PickBody): void;
  /** Where the card puts what a scan means at this stop. */
  scanRef: ScanRef;
  message: Message;
  setMessage(message: Message): void;
  /** The first expiry a line may take today (the warehouse's minShelfLifeDays). */
  firstDay: string;
}

/** The lot of the units counted, when a GS1 scan named another than the line's. */
interface CountedLot {
  lot: string;
  expiresOn: string | null;
}

/** The units of `line` counted so far on this device, and their lot when another (0 and none when another line was being counted). */
function storedCount(waveId: string, visit: Visit, line: WaveLine): { count: number; lot: CountedLot | null } {
  try {
    const stored = JSON.parse(sessionStorage.getItem(countKey(waveId)) ?? 'null') as { line?: string; count?: number; lot?: CountedLot | null } | null;
    if (stored?.line !== lineKeyOf(line, visit.locationCode) || !Number.isInteger(stored.count)) return { count: 0, lot: null };
    return { count: stored.count as number, lot: stored.lot ?? null };
  } catch {
    return { count: 0, lot: null };
  }
}

/**
 * The stop in hand: where, what (of which lot), how many into which tote. Each scan of the product
 * counts one unit ("2 of 3"); the line is recorded when the count reaches the quantity. Quantity
 * sets the count at once (a case of 24), and Short pick records fewer with a reason. A GS1 scan
 * naming another lot than the line's counts its units as taken from that lot: the pick names it,
 * and the service records it if first expiry, first out allows it there (else the pick is refused,
 * naming the lot to take). Every unit of a pick is of one lot.
 */
function VisitCard({ waveId, visit, line, confirmed, onConfirm, onPick, scanRef, message, setMessage, firstDay }: VisitProps) {
  const stored = storedCount(waveId, visit, line);
  // Refs as well as state: two scans may arrive before the screen redraws.
  const counted = useRef(stored.count);
  const countedLot = useRef(stored.lot);
  const [count, setCount] = useState(counted.current);
  const [quantity, setQuantity] = useState(String(counted.current));
  const [shortOpen, setShortOpen] = useState(false);
  const [reason, setReason] = useState<ShortReason>('not_found');

  const wrong = (text: string) => {
    rejected();
    setMessage({ kind: 'error', text });
  };

  /** Sets the count (of `lot` when another than the line's); records the line once it reaches the quantity. */
  const countTo = (next: number, lot = countedLot.current) => {
    counted.current = next;
    countedLot.current = lot;
    setCount(next);
    setQuantity(String(next));
    sessionStorage.setItem(countKey(waveId), JSON.stringify({ line: lineKeyOf(line, visit.locationCode), count: next, lot }));
    accepted();
    const ofLot = lot ? `, ${lotText(lot.lot, lot.expiresOn)} in place of ${line.lot}` : '';
    if (next < line.quantity) return setMessage({ kind: 'info', text: `Counted ${next} of ${line.quantity} × ${line.name}${ofLot}.` });
    sessionStorage.removeItem(countKey(waveId));
    onPick(pickAt(visit, line, next, { pickedLot: lot?.lot }));
    setMessage({ kind: 'info', text: `Picked ${next} × ${line.name} into tote ${line.tote}${ofLot}.` });
  };

  const onScan = (code: string) => {
    if (!code) return;
    if (!confirmed) {
      if (!isLocation(visit, code)) return wrong(`Wrong scan: ${code}. Expected location ${visit.locationCode}.`);
      accepted();
      onConfirm();
      return setMessage({ kind: 'info', text: `Location ${visit.locationCode} confirmed. Scan ${line.name}.` });
    }
    if (isLocation(visit, code)) return setMessage({ kind: 'info', text: `At location ${visit.locationCode}. Scan ${line.name}.` });
    const scan = readScan(code);
    if (scan.error) return wrong(`Wrong scan: ${scan.error}`);
    const found = lineScanned(visit, scan);
    if (found?.line !== line) return wrong(`Wrong scan: ${code}. Expected ${productLabel(line)}.`);
    const { units, packaging, lot, expiresOn } = found.scanned;
    const left = line.quantity - counted.current;
    if (units > left) {
      return wrong(`Too many: that scan counts ${units}${packaging ? ` (1 ${packaging.name} of ${packaging.quantity})` : ''}, but ${left} ${left === 1 ? 'is' : 'are'} left to take. Scan single units.`);
    }
    // A scan's lot counts for a line of a lot only; a scan without one leaves the lot counted as it is.
    if (line.lot === null || lot === undefined) return countTo(counted.current + units);
    const holding = countedLot.current ?? { lot: line.lot, expiresOn: line.expiresOn };
    if (counted.current > 0 && lot !== holding.lot) {
      return wrong(`Wrong lot: ${lot}. The ${counted.current} counted are of ${lotText(holding.lot, holding.expiresOn)}: take the rest from that lot.`);
    }
    // The expiry the label carries refuses a lot at once; the service checks the rest when the pick is sent.
    const why = lot === line.lot || expiresOn === undefined ? null : lotInPlaceProblem({ lot: line.lot, expiresOn: line.expiresOn }, expiresOn, firstDay);
    if (why) return wrong(`Wrong lot: ${lot}, ${why}. Take ${lotText(line.lot, line.expiresOn)}.`);
    countTo(counted.current + units, lot === line.lot ? null : { lot, expiresOn: expiresOn ?? null });
  };
  scanRef.current = onScan;

  /** Quantity, typed and sent with Enter: the count at once. */
  const setByHand = (event: Event) => {
    event.preventDefault();
    const next = Number(quantity);
    if (!Number.isInteger(next) || next < 0 || next > line.quantity) return wrong(`Quantity must be a whole number from 0 to ${line.quantity}.`);
    if (!confirmed) return wrong(`Scan location ${visit.locationCode} first.`);
    countTo(next);
  };

  const shortPick = (event: Event) => {
    event.preventDefault();
    const next = Number(quantity);
    if (!Number.isInteger(next) || next < 0 || next >= line.quantity) {
      return wrong(`A short pick records fewer than ${line.quantity}: set Quantity to what you found (0 to ${line.quantity - 1}).`);
    }
    sessionStorage.removeItem(countKey(waveId));
    onPick(pickAt(visit, line, next, { reason, pickedLot: countedLot.current?.lot }));
    setMessage({ kind: 'info', text: `Short pick recorded: ${next} of ${line.quantity} × ${line.name} (${REASONS.find((r) => r.value === reason)?.label.toLowerCase()}).` });
  };

  const placed = visit.locationCode !== null;
  return (
    <article class="stop" aria-labelledby="stop-location">
      <p class="stop-label">{placed ? (confirmed ? 'At location' : 'Go to location') : 'After the route'}</p>
      <h2 id="stop-location" class="location">
        {visit.locationCode ?? 'Unplaced items'}
      </h2>
      {!placed && <p class="unplaced-note">These products have no location on the floor: find them, then scan each one.</p>}
      <div class="line">
        <p class="product-name">{line.name}</p>
        <p class="sku">
          SKU {line.productSku}
          {line.barcode ? ` · barcode ${line.barcode}` : ''}
        </p>
        {line.lot !== null && (
          <p class="lot">
            Lot <strong>{line.lot}</strong> · {line.expiresOn === null ? 'no expiry' : `expires ${line.expiresOn}`}
          </p>
        )}
        <p class="quantity-needed">
          {/* An unplaced product has no "here": it is found wherever it is. */}
          Take <strong>{quantityText(line.quantity, line.packagings)}</strong> {placed ? 'here for' : 'for'} tote <strong>{line.tote}</strong>
        </p>
        <p class="unit-count">
          <span class="visually-hidden">Counted: </span>
          <strong>
            {count} of {line.quantity}
          </strong>
        </p>
        {line.next && (
          <p class="quantity-rest">
            {line.next.quantity} more at {line.next.locationCode}
          </p>
        )}
        <ul class="totes" aria-label="This product at this stop, by tote">
          {totesFor(visit, line).map((tote) => (
            <li key={tote.tote} class={tote.done ? 'done' : ''}>
              Tote {tote.tote}: {tote.quantity}
              {tote.done ? ' ✓ done' : ''}
            </li>
          ))}
        </ul>
      </div>
      <ScanField onScan={onScan} />
      <MessageLine message={message} />
      <form class="pick-controls" onSubmit={setByHand}>
        <label for="quantity">Quantity</label>
        <input
          id="quantity"
          type="number"
          inputMode="numeric"
          min={0}
          max={line.quantity}
          value={quantity}
          onInput={(event) => setQuantity((event.target as HTMLInputElement).value)}
        />
        <button type="button" class="big" aria-expanded={shortOpen} aria-controls="short-pick" onClick={() => setShortOpen(!shortOpen)}>
          Short pick
        </button>
      </form>
      {shortOpen && (
        <form id="short-pick" class="short-pick" onSubmit={shortPick}>
          <fieldset>
            <legend>Reason</legend>
            {REASONS.map((option) => (
              <label key={option.value} class="radio">
                <input type="radio" name="reason" value={option.value} checked={reason === option.value} onChange={() => setReason(option.value)} />
                {option.label}
              </label>
            ))}
          </fieldset>
          <button type="submit" class="primary big">
            Record short pick
          </button>
        </form>
      )}
      {visit.lines.length > 1 && (
        <details class="stop-lines">
          <summary>Everything at this stop ({visit.lines.length} lines)</summary>
          <ul>
            {visit.lines.map((other) => (
              <li key={lineKeyOf(other, visit.locationCode)}>
                {other.name}, tote {other.tote}: {other.pickedQuantity === null ? `${other.quantity} to pick` : `${other.pickedQuantity} of ${other.quantity} picked`}
              </li>
            ))}
          </ul>
        </details>
      )}
    </article>
  );
}

function AllPicked({ wave, waiting, busy, onFinish, message }: { wave: PickerWave; waiting: number; busy: boolean; onFinish(): void; message: Message }) {
  const ready = allRecorded(wave) && waiting === 0;
  return (
    <article class="stop" aria-labelledby="all-picked">
      <h2 id="all-picked">Every line is recorded</h2>
      <p>{waiting > 0 ? `Waiting to send ${plural(waiting, 'pick')} before the wave can finish.` : 'Take the cart back to the depot and finish the wave.'}</p>
      <MessageLine message={message} />
      <button type="button" class="primary big" onClick={onFinish} disabled={!ready || busy}>
        Finish wave
      </button>
    </article>
  );
}

function WaveProgress({ wave }: { wave: PickerWave }) {
  const { stopsDone, stopsTotal, distanceLeft } = wave.progress;
  return (
    <footer class="progress" aria-label="Progress">
      <p class="wave-name">Wave {waveName(wave)}</p>
      <p>
        <span>
          Stops done: {stopsDone} of {stopsTotal}
        </span>
        <span>Distance left: {Math.round(distanceLeft * 10) / 10}</span>
      </p>
      <progress max={Math.max(stopsTotal, 1)} value={stopsDone} aria-label="Stops done" />
    </footer>
  );
}
