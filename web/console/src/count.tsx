import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, describe, type BlindCount, type CountedProduct } from './api';
import { readScan, scannedUnits, type ReadScan } from '../../../src/catalog/scan';
import { sameCode } from './bursts';
import { accepted, rejected } from './feedback';
import { MessageLine, ScanField, type Message, type ScanRef } from './scan-field';
import { useScanner } from './scanner';
import { plural } from './text';

/** Units counted so far, by product externalId, kept through a reload while the count is in hand. */
const talliesKey = (countId: string) => `pickport.count.${countId}`;

function storedTallies(countId: string): Record<string, number> {
  try {
    const stored = JSON.parse(sessionStorage.getItem(talliesKey(countId)) ?? '{}') as Record<string, unknown>;
    return Object.fromEntries(Object.entries(stored).filter((entry): entry is [string, number] => Number.isInteger(entry[1])));
  } catch {
    return {};
  }
}

/**
 * The units a scan counts of the product, or null when it names another: its barcode, its sku or
 * its externalId (one), a packaging's barcode or a GS1 string naming it (scan.ts).
 */
const unitsOf = (product: CountedProduct, scan: ReadScan): number | null =>
  scannedUnits({ productSku: product.sku, barcode: product.barcode, packagings: product.packagings }, scan)?.units ?? (sameCode(product.productExternalId, scan.code) ? 1 : null);

/**
 * The count screen: the open counts, by location; one taken in hand, its location scanned, then
 * every unit there scanned (or a number typed into "Counted"), and "Finish count". Blind: the
 * screen never learns what the records say stands there, only which products to expect.
 */
export function Counting() {
  const [open, setOpen] = useState<BlindCount[] | undefined>(undefined);
  const [inHand, setInHand] = useState<BlindCount | null>(null);
  const [message, setMessage] = useState<Message>(null);
  /** What a scan means on the count in hand (set by it); without one, the list wants none. */
  const countScan = useRef<((code: string) => void) | null>(null);

  useScanner((code) => {
    if (inHand) return countScan.current?.(code);
    rejected();
    setMessage({ kind: 'error', text: `Scan not needed: ${code}. Choose a count first.` });
  });

  const load = useCallback(async () => {
    try {
      setOpen(await api('GET', '/counts'));
    } catch (error) {
      setMessage({ kind: 'error', text: describe(error) });
      setOpen((known) => known ?? []);
    }
  }, []);
  useEffect(() => void load(), [load]);

  const done = (text: Message) => {
    setInHand(null);
    setMessage(text);
    void load();
  };

  if (open === undefined) return <p role="status">Loading the open counts…</p>;
  if (inHand) return <CountCard key={inHand.id} count={inHand} scanRef={countScan} message={message} setMessage={setMessage} onDone={done} />;
  return (
    <section aria-labelledby="counts-heading" class="picker counting">
      <h2 id="counts-heading">Open counts</h2>
      <MessageLine message={message} />
      {open.length === 0 ? (
        <p>No count is open.</p>
      ) : (
        <ul class="count-list">
          {open.map((count) => (
            <li key={count.id}>
              <button
                type="button"
                class="big"
                onClick={() => {
                  setMessage(null);
                  setInHand(count);
                }}
              >
                Count {count.locationCode}
              </button>
              <span class="sku">
                {plural(count.products.length, 'product')} expected{count.reason === 'SHORT_PICK' ? ' · asked for by a short pick' : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
      <button type="button" onClick={() => void load()}>
        Refresh
      </button>
    </section>
  );
}

interface CountCardProps {
  count: BlindCount;
  scanRef: ScanRef;
  message: Message;
  setMessage(message: Message): void;
  onDone(message: Message): void;
}

/** The count in hand: the location to confirm, then the products found there, a unit a scan. */
function CountCard({ count, scanRef, message, setMessage, onDone }: CountCardProps) {
  const [confirmed, setConfirmed] = useState(false);
  const [products, setProducts] = useState<CountedProduct[]>(count.products);
  // A ref as well as state: two scans may arrive before the screen redraws.
  const tallies = useRef<Record<string, number>>(storedTallies(count.id));
  const [shown, setShown] = useState(tallies.current);
  const [current, setCurrent] = useState<CountedProduct | null>(null);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);

  const wrong = (text: string) => {
    rejected();
    setMessage({ kind: 'error', text });
  };

  const tally = (product: CountedProduct, units: number) => {
    tallies.current = { ...tallies.current, [product.productExternalId]: units };
    sessionStorage.setItem(talliesKey(count.id), JSON.stringify(tallies.current));
    setShown(tallies.current);
    setCurrent(product);
    setTyped(String(units));
    accepted();
    setMessage({ kind: 'info', text: `Counted ${units} × ${product.name}.` });
  };

  const onScan = async (code: string) => {
    if (!code) return;
    if (!confirmed) {
      if (!sameCode(count.locationCode, code)) return wrong(`Wrong scan: ${code}. Expected location ${count.locationCode}.`);
      accepted();
      setConfirmed(true);
      return setMessage({ kind: 'info', text: `Location ${count.locationCode} confirmed. Scan each unit there.` });
    }
    if (sameCode(count.locationCode, code)) return setMessage({ kind: 'info', text: `At location ${count.locationCode}. Scan each unit there.` });
    const scan = readScan(code);
    if (scan.error) return wrong(`Wrong scan: ${scan.error}`);
    let product = products.find((known) => unitsOf(known, scan) !== null);
    if (!product) {
      try {
        product = await api('GET', '/counting/products/{ref}', { params: { ref: code } });
      } catch (error) {
        return wrong(error instanceof ApiError && error.status === 404 ? `No product has the code ${code}.` : describe(error));
      }
      const found = product;
      setProducts((known) => (known.some((other) => other.productExternalId === found.productExternalId) ? known : [...known, found]));
    }
    tally(product, (tallies.current[product.productExternalId] ?? 0) + (unitsOf(product, scan) ?? 1));
  };
  scanRef.current = (code) => void onScan(code);

  /** "Counted", sent with Enter: the units of the product in hand at once (a case of 24). */
  const setByHand = (event: Event) => {
    event.preventDefault();
    if (!confirmed) return wrong(`Scan location ${count.locationCode} first.`);
    if (!current) return wrong('Scan a product, or choose one below, first.');
    const units = Number(typed);
    if (typed.trim() === '' || !Number.isInteger(units) || units < 0) return wrong('Counted must be a whole number of 0 or more.');
    tally(current, units);
  };

  const finish = async () => {
    setBusy(true);
    try {
      const lines = Object.entries(tallies.current).map(([productExternalId, quantity]) => ({ productExternalId, quantity }));
      await api('POST', '/counts/{id}/finish', { params: { id: count.id }, body: { lines } });
      sessionStorage.removeItem(talliesKey(count.id));
      onDone({ kind: 'info', text: `Count of ${count.locationCode} finished: ${plural(lines.reduce((sum, line) => sum + line.quantity, 0), 'unit')} counted.` });
    } catch (error) {
      rejected();
      if (error instanceof ApiError && error.status === 409) {
        sessionStorage.removeItem(talliesKey(count.id));
        return onDone({ kind: 'error', text: `Count of ${count.locationCode} not recorded: ${describe(error)}` });
      }
      setMessage({ kind: 'error', text: describe(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <article class="picker stop counting" aria-labelledby="count-location">
      <p class="stop-label">{confirmed ? 'Counting at location' : 'Go to location'}</p>
      <h2 id="count-location" class="location">
        {count.locationCode}
      </h2>
      <p>{confirmed ? 'Scan every unit here, or choose a product and type how many.' : `Scan location ${count.locationCode} to start.`}</p>
      <ScanField onScan={scanRef.current} />
      <MessageLine message={message} />
      <form class="pick-controls" onSubmit={setByHand}>
        <label for="counted">Counted</label>
        <input id="counted" type="number" inputMode="numeric" min={0} value={typed} onInput={(event) => setTyped((event.target as HTMLInputElement).value)} />
        <span class="sku">{current ? current.name : 'no product chosen'}</span>
      </form>
      <ul class="count-products" aria-label={`Products at ${count.locationCode}`}>
        {products.map((product) => (
          <li key={product.productExternalId}>
            <button
              type="button"
              aria-pressed={current?.productExternalId === product.productExternalId}
              onClick={() => {
                setCurrent(product);
                setTyped(String(tallies.current[product.productExternalId] ?? 0));
              }}
            >
              {product.name}
            </button>{' '}
            <span class="sku">
              SKU {product.sku} · counted {shown[product.productExternalId] ?? 0}
            </span>
          </li>
        ))}
      </ul>
      <button type="button" class="primary big" onClick={() => void finish()} disabled={!confirmed || busy}>
        Finish count
      </button>
      <button type="button" onClick={() => onDone(null)}>
        Back to the open counts
      </button>
    </article>
  );
}
