import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, describe, isNetworkFailure, type PickBody, type PickerWave, type ShortReason, type WaveLine } from './api';
import { accepted, rejected } from './feedback';
import { allRecorded, isLocation, lineScanned, nextVisit, pendingLines, productLabel, totesFor, withPicks, type Visit } from './picking';
import { PickQueue } from './queue';

type Message = { kind: 'error' | 'info'; text: string } | null;

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

/**
 * The handheld screen: one stop at a time, driven by a keyboard-wedge scanner typing into the
 * always-focused "Scan" input. Every pick goes through the offline queue, so picks reach the
 * service in the order they were made, whether or not the network was there at the time.
 */
export function Picker() {
  const [server, setServer] = useState<PickerWave | null | undefined>(undefined);
  const [pending, setPending] = useState<PickBody[]>([]);
  const [finished, setFinished] = useState<PickerWave | null>(null);
  const [confirmed, setConfirmed] = useState<string | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const [busy, setBusy] = useState(false);
  const queue = useMemo(() => (server ? new PickQueue(server.id) : null), [server?.id]);
  const flushing = useRef(false);

  const wave = server ? withPicks(server, pending) : server;
  const visit = wave ? nextVisit(wave) : null;

  const load = useCallback(async () => {
    try {
      const current = await api('GET', '/picking/wave');
      setServer(current);
      setConfirmed(current ? sessionStorage.getItem(confirmedKey(current.id)) : null);
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
          setServer(await api('POST', '/picking/wave/picks', { body: pick }));
          queue.shift();
        } catch (error) {
          if (worthRetrying(error)) break;
          // Refused for good (the wave was released, a rule changed): drop it and say so.
          queue.shift();
          rejected();
          setMessage({ kind: 'error', text: `A pick of ${pick.productExternalId} was not recorded: ${describe(error)}` });
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
      setFinished(done);
      setServer(null);
      setMessage(null);
    } catch (error) {
      setMessage({ kind: 'error', text: describe(error) });
    } finally {
      setBusy(false);
    }
  };

  if (wave === undefined) return <p role="status">Loading your wave…</p>;

  if (wave === null) {
    return (
      <section aria-labelledby="start-heading" class="picker-start">
        <h2 id="start-heading">{finished ? 'Wave finished' : 'No wave in hand'}</h2>
        {finished && (
          <p role="status">
            {finished.orders.length} {finished.orders.length === 1 ? 'order' : 'orders'} picked ({finished.orders.map((order) => order.orderNumber).join(', ')}). Take the cart to packing.
          </p>
        )}
        <MessageLine message={message} />
        <button type="button" class="primary big" onClick={start} disabled={busy}>
          Start picking
        </button>
      </section>
    );
  }

  return (
    <section aria-label="Picking" class="picker">
      {visit ? (
        <VisitCard
          key={`${wave.id}:${visit.locationCode}`}
          visit={visit}
          confirmed={visit.locationCode === null || confirmed === visit.locationCode}
          onConfirm={() => confirm(visit.locationCode)}
          onPick={record}
          message={message}
          setMessage={setMessage}
        />
      ) : (
        <AllPicked wave={wave} waiting={pending.length} busy={busy} onFinish={finish} message={message} />
      )}
      <WaveProgress wave={wave} waiting={pending.length} />
    </section>
  );
}

function MessageLine({ message }: { message: Message }) {
  // Always rendered, so screen readers announce each new message in the live region.
  return (
    <p class={`message ${message?.kind ?? ''}`} role={message?.kind === 'error' ? 'alert' : 'status'}>
      {message?.text ?? ''}
    </p>
  );
}

interface VisitProps {
  visit: Visit;
  confirmed: boolean;
  onConfirm(): void;
  onPick(pick: PickBody): void;
  message: Message;
  setMessage(message: Message): void;
}

/** The stop in hand: where, what, how many into which tote, and the scan that confirms each step. */
function VisitCard({ visit, confirmed, onConfirm, onPick, message, setMessage }: VisitProps) {
  const line = pendingLines(visit)[0] as WaveLine;
  const lineKey = `${line.orderExternalId}:${line.productExternalId}`;
  const [quantity, setQuantity] = useState(String(line.quantity));
  const [shortOpen, setShortOpen] = useState(false);
  const [reason, setReason] = useState<ShortReason>('not_found');
  const scan = useRef<HTMLInputElement>(null);
  const focusScan = () => requestAnimationFrame(() => scan.current?.focus());

  useEffect(() => {
    setQuantity(String(line.quantity));
    setShortOpen(false);
    focusScan();
  }, [lineKey]);

  const wrong = (text: string) => {
    rejected();
    setMessage({ kind: 'error', text });
  };

  const onScan = (event: Event) => {
    event.preventDefault();
    const input = scan.current;
    const code = input?.value.trim() ?? '';
    if (input) input.value = '';
    if (!code) return;
    if (!confirmed) {
      if (!isLocation(visit, code)) return wrong(`Wrong scan: ${code}. Expected location ${visit.locationCode}.`);
      accepted();
      onConfirm();
      return setMessage({ kind: 'info', text: `Location ${visit.locationCode} confirmed. Scan ${line.name}.` });
    }
    if (isLocation(visit, code)) return setMessage({ kind: 'info', text: `Location ${visit.locationCode} already confirmed. Scan ${line.name}.` });
    const scanned = lineScanned(visit, code);
    if (!scanned) return wrong(`Wrong scan: ${code}. Expected ${productLabel(line)}.`);
    const count = scanned === line ? Number(quantity) : scanned.quantity;
    if (!Number.isInteger(count) || count < 0 || count > scanned.quantity) return wrong(`Quantity must be a whole number from 0 to ${scanned.quantity}.`);
    if (count < scanned.quantity) return wrong(`Fewer than ordered (${count} of ${scanned.quantity}): press Short pick and give a reason.`);
    accepted();
    onPick({ orderExternalId: scanned.orderExternalId, productExternalId: scanned.productExternalId, quantity: count });
    setMessage({ kind: 'info', text: `Picked ${count} × ${scanned.name} into tote ${scanned.tote}.` });
  };

  const shortPick = (event: Event) => {
    event.preventDefault();
    const count = Number(quantity);
    if (!Number.isInteger(count) || count < 0 || count >= line.quantity) {
      return wrong(`A short pick records fewer than ${line.quantity}: set Quantity to what you found (0 to ${line.quantity - 1}).`);
    }
    onPick({ orderExternalId: line.orderExternalId, productExternalId: line.productExternalId, quantity: count, reason });
    setMessage({ kind: 'info', text: `Short pick recorded: ${count} of ${line.quantity} × ${line.name} (${REASONS.find((r) => r.value === reason)?.label.toLowerCase()}).` });
  };

  // A scanner types into whatever has focus: keep it on "Scan" unless the picker moved it on purpose.
  const keepFocus = (event: FocusEvent) => {
    if (!event.relatedTarget) focusScan();
  };

  return (
    <article class="stop" aria-labelledby="stop-location">
      <p class="stop-label">{visit.locationCode ? (confirmed ? 'At location' : 'Go to location') : 'No location: find these items'}</p>
      <h2 id="stop-location" class="location">
        {visit.locationCode ?? 'Unplaced items'}
      </h2>
      <div class="line">
        <p class="product-name">{line.name}</p>
        <p class="sku">
          SKU {line.productSku}
          {line.barcode ? ` · barcode ${line.barcode}` : ''}
        </p>
        <p class="quantity-needed">
          Take <strong>{line.quantity}</strong> for tote <strong>{line.tote}</strong>
        </p>
        <ul class="totes" aria-label="This product at this stop, by tote">
          {totesFor(visit, line).map((tote) => (
            <li key={tote.tote}>
              Tote {tote.tote}: {tote.quantity}
            </li>
          ))}
        </ul>
      </div>
      <form onSubmit={onScan} class="scan-form">
        <label for="scan">Scan</label>
        <input id="scan" ref={scan} autoFocus autocomplete="off" autocapitalize="off" spellcheck={false} enterkeyhint="enter" onBlur={keepFocus} />
      </form>
      <MessageLine message={message} />
      <div class="pick-controls">
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
      </div>
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
              <li key={`${other.orderExternalId}:${other.productExternalId}`}>
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
      <p>{waiting > 0 ? `Waiting to send ${waiting} ${waiting === 1 ? 'pick' : 'picks'} before the wave can finish.` : 'Take the cart back to the depot and finish the wave.'}</p>
      <MessageLine message={message} />
      <button type="button" class="primary big" onClick={onFinish} disabled={!ready || busy}>
        Finish wave
      </button>
    </article>
  );
}

function WaveProgress({ wave, waiting }: { wave: PickerWave; waiting: number }) {
  const { stopsDone, stopsTotal, distanceLeft } = wave.progress;
  return (
    <footer class="progress" aria-label="Progress">
      <p>
        <span>
          Stops done: {stopsDone} of {stopsTotal}
        </span>
        <span>Distance left: {Math.round(distanceLeft * 10) / 10}</span>
      </p>
      <progress max={Math.max(stopsTotal, 1)} value={stopsDone} aria-label="Stops done" />
      <p role="status" class="queue">
        {waiting > 0 ? `${waiting} ${waiting === 1 ? 'pick' : 'picks'} not sent yet: kept on this device until the network is back` : ''}
      </p>
    </footer>
  );
}
