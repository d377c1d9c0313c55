import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, describe, type BlindCount, type CountedProduct } from './api';
import { readScan, scannedUnits, type ReadScan } from '../../../src/catalog/scan';
import { sameCode } from './bursts';
import { accepted, rejected } from './feedback';
import { MessageLine, ScanField, type Message, type ScanRef } from './scan-field';
import { useScanner } from './scanner';
import { plural } from './text';

/** Units counted so far of a product, or of one lot of it (with the lot's expiry when a GS1 label gave it). */
interface Tally {
  productExternalId: string;
  lot?: string;
  expiresOn?: string;
  units: number;
}

/** Where the tallies are kept through a reload while the count is in hand. */
const talliesKey = (countId: string) => `pickport.count.${countId}`;
/** A tally's key: its product and lot, as the count's lines are. */
const tallyKey = (productExternalId: string, lot?: string) => JSON.stringify([productExternalId, lot ?? '']);

function storedTallies(countId: string): Record<string, Tally> {
  try {
    const stored = JSON.parse(sessionStorage.getItem(talliesKey(countId)) ?? '{}') as Record<string, Partial<Tally>>;
    return Object.fromEntries(Object.entries(stored).filter((entry): entry is [string, Tally] => typeof entry[1].productExternalId === 'string' && Number.isInteger(entry[1].units)));
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
 * screen never learns what the records say stands there, only which products to expect. A product
 * kept by lot is counted lot by lot: a GS1 label's (10) names the lot; a plain scan asks for it
 * ("Lot", typed, or the label scanned).
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

/** The product and lot a count is set for: by "Counted", or by the next scan. */
interface Counting {
  product: CountedProduct;
  lot?: string;
  expiresOn?: string;
}

/** The count in hand: the location to confirm, then the products found there, a unit a scan, lot by lot for a product kept by lot. */
function CountCard({ count, scanRef, message, setMessage, onDone }: CountCardProps) {
  const [confirmed, setConfirmed] = useState(false);
  const [products, setProducts] = useState<CountedProduct[]>(count.products);
  // A ref as well as state: two scans may arrive before the screen redraws.
  const tallies = useRef<Record<string, Tally>>(storedTallies(count.id));
  const [shown, setShown] = useState(tallies.current);
  const [current, setCurrent] = useState<Counting | null>(null);
  /** A product kept by lot scanned without its lot: the units it counts wait for the lot. */
  const [asking, setAsking] = useState<{ product: CountedProduct; units: number } | null>(null);
  const [typed, setTyped] = useState('');
  const [typedLot, setTypedLot] = useState('');
  const [busy, setBusy] = useState(false);

  const wrong = (text: string) => {
    rejected();
    setMessage({ kind: 'error', text });
  };

  const unitsAt = ({ product, lot }: Counting) => tallies.current[tallyKey(product.productExternalId, lot)]?.units ?? 0;

  const tally = ({ product, lot, expiresOn }: Counting, units: number) => {
    const key = tallyKey(product.productExternalId, lot);
    const known = tallies.current[key];
    const tallied: Tally = { productExternalId: product.productExternalId, ...(lot === undefined ? {} : { lot }), units };
    const expiry = expiresOn ?? known?.expiresOn;
    tallies.current = { ...tallies.current, [key]: expiry === undefined ? tallied : { ...tallied, expiresOn: expiry } };
    sessionStorage.setItem(talliesKey(count.id), JSON.stringify(tallies.current));
    setShown(tallies.current);
    setCurrent({ product, ...(lot === undefined ? {} : { lot }) });
    setAsking(null);
    setTyped(String(units));
    accepted();
    setMessage({ kind: 'info', text: `Counted ${units} × ${product.name}${lot === undefined ? '' : `, lot ${lot}`}.` });
  };

  /** A product kept by lot without its lot: ask for it, keeping the units scanned until it is given. */
  const askLot = (product: CountedProduct, units: number) => {
    accepted();
    setAsking({ product, units });
    setTypedLot('');
    const what = units === 0 ? 'its lot' : `the lot of the ${plural(units, 'unit')} scanned`;
    setMessage({ kind: 'info', text: `${product.name} is counted by lot: type ${what} into Lot, or scan the GS1 label of the next unit.` });
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
    const listed = products.find((known) => unitsOf(known, scan) !== null);
    let product: CountedProduct;
    try {
      product = listed ?? (await api('GET', '/counting/products/{ref}', { params: { ref: code } }));
    } catch (error) {
      return wrong(error instanceof ApiError && error.status === 404 ? `No product has the code ${code}.` : describe(error));
    }
    // Units scanned while the lot is asked for wait for it: another product is not counted until it is given.
    const waiting = asking?.product.productExternalId === product.productExternalId ? asking.units : 0;
    if (asking && asking.units > 0 && waiting === 0) {
      return wrong(`Not counted: first type the lot of the ${plural(asking.units, 'unit')} of ${asking.product.name} scanned into Lot, or scan the GS1 label of the next one.`);
    }
    if (!listed) {
      const found = product;
      setProducts((known) => (known.some((other) => other.productExternalId === found.productExternalId) ? known : [...known, found]));
    }
    const units = waiting + (unitsOf(product, scan) ?? 1);
    // Only a product kept by lot is counted by lot: the lot on another's label is not its slots'.
    if (!product.keptByLot) return tally({ product }, unitsAt({ product }) + units);
    const lot = scan.gs1?.lot;
    if (lot === undefined) return askLot(product, units);
    const counting = { product, lot, ...(scan.gs1?.expiresOn === undefined ? {} : { expiresOn: scan.gs1.expiresOn }) };
    tally(counting, unitsAt(counting) + units);
  };
  scanRef.current = (code) => void onScan(code);

  /** "Lot", sent with Enter: the lot of the product asked for, which gets the units waiting. */
  const setLot = (event: Event) => {
    event.preventDefault();
    const lot = typedLot.trim();
    if (!asking) return wrong('Scan a product kept by lot first.');
    if (lot === '' || lot.length > 50) return wrong('Lot must be 1 to 50 characters.');
    const counting = { product: asking.product, lot };
    tally(counting, unitsAt(counting) + asking.units);
  };

  /** "Counted", sent with Enter: the units of the product (and lot) in hand at once (a case of 24). */
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
      const lines = Object.values(tallies.current).map(({ units, ...line }) => ({ ...line, quantity: units }));
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

  /** Chooses a product (a lot of it, when given) for "Counted"; a product kept by lot without one asks for the lot. */
  const choose = (product: CountedProduct, lot?: string) => {
    if (product.keptByLot && lot === undefined) return askLot(product, 0);
    const counting = { product, ...(lot === undefined ? {} : { lot }) };
    setCurrent(counting);
    setTyped(String(unitsAt(counting)));
  };
  const lotsCounted = (product: CountedProduct) => Object.values(shown).filter((tallied) => tallied.productExternalId === product.productExternalId && tallied.lot !== undefined);
  const isCurrent = (product: CountedProduct, lot?: string) => current?.product.productExternalId === product.productExternalId && current.lot === lot;

  return (
    <article class="picker stop counting" aria-labelledby="count-location">
      <p class="stop-label">{confirmed ? 'Counting at location' : 'Go to location'}</p>
      <h2 id="count-location" class="location">
        {count.locationCode}
      </h2>
      <p>{confirmed ? 'Scan every unit here, or choose a product and type how many.' : `Scan location ${count.locationCode} to start.`}</p>
      <ScanField onScan={scanRef.current} />
      <MessageLine message={message} />
      {asking && (
        <form class="pick-controls" onSubmit={setLot}>
          <label for="lot">Lot</label>
          <input id="lot" autocomplete="off" autocapitalize="off" spellcheck={false} maxLength={50} value={typedLot} onInput={(event) => setTypedLot((event.target as HTMLInputElement).value)} />
          <span class="sku">of {asking.product.name}</span>
        </form>
      )}
      <form class="pick-controls" onSubmit={setByHand}>
        <label for="counted">Counted</label>
        <input id="counted" type="number" inputMode="numeric" min={0} value={typed} onInput={(event) => setTyped((event.target as HTMLInputElement).value)} />
        <span class="sku">{current ? `${current.product.name}${current.lot === undefined ? '' : `, lot ${current.lot}`}` : 'no product chosen'}</span>
      </form>
      <ul class="count-products" aria-label={`Products at ${count.locationCode}`}>
        {products.map((product) => (
          <li key={product.productExternalId}>
            <button type="button" aria-pressed={isCurrent(product)} onClick={() => choose(product)}>
              {product.name}
            </button>{' '}
            <span class="sku">
              SKU {product.sku} · {product.keptByLot ? 'by lot' : `counted ${shown[tallyKey(product.productExternalId)]?.units ?? 0}`}
            </span>
            {product.keptByLot && lotsCounted(product).length > 0 && (
              <ul class="count-lots" aria-label={`Lots of ${product.name}`}>
                {lotsCounted(product).map((tallied) => (
                  <li key={tallied.lot}>
                    <button type="button" aria-pressed={isCurrent(product, tallied.lot)} onClick={() => choose(product, tallied.lot)}>
                      Lot {tallied.lot}
                    </button>{' '}
                    <span class="sku">counted {tallied.units}</span>
                  </li>
                ))}
              </ul>
            )}
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
