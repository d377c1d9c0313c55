import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import { quantityText } from '../../../src/catalog/scan';
import { api, describe, type PackOrder, type PickerWave } from './api';
import { pickedLotsText, waveLabel } from './text';
import { visitsOf } from './picking';

/** The sheet sizes a page prints on: an office printer's A4, or a 4×6 in label printer's label. */
const SIZES = { a4: 'A4', label: '4×6 in' } as const;
type Size = keyof typeof SIZES;
/**
 * The label's page rule, in a style sheet built here and added while the label is chosen: the
 * Content-Security-Policy allows no inline style, and the size is the whole document's.
 */
const LABEL_SHEET = '@page { size: 4in 6in; margin: 4mm; } @media print { :root { font-size: 9pt; } }';

/** A link to a page to print, opened in this tab (a console has one tab per device): Back returns. */
export function PrintLink({ to, label }: { to: string; label: string }) {
  return (
    <a
      class="print-link"
      href={to}
      onClick={(event) => {
        event.preventDefault();
        history.pushState(null, '', to);
        dispatchEvent(new PopStateEvent('popstate'));
      }}
    >
      {label}
    </a>
  );
}

/** What /console/print/... names: a wave's pick list or an order's packing slip. */
export function printTarget(pathname: string): { kind: 'wave' | 'slip'; ref: string } | null {
  const [, kind, ref] = /^\/console\/print\/(wave|slip)\/([^/]+)$/.exec(pathname) ?? [];
  return kind && ref ? { kind: kind as 'wave' | 'slip', ref: decodeURIComponent(ref) } : null;
}

/**
 * A print-friendly page: the page itself is what prints (styles.css, `@media print`), on the size
 * chosen here. Everything else of the console (the bar, these buttons) is left off the paper.
 */
export function Print({ pathname }: { pathname: string }) {
  const target = printTarget(pathname);
  const [size, setSize] = useState<Size>('a4');
  // Before the browser paints, so that a print asked for right after the choice has its size.
  useLayoutEffect(() => {
    if (size !== 'label') return;
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(LABEL_SHEET);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    return () => {
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((adopted) => adopted !== sheet);
    };
  }, [size]);

  return (
    <div class="print-page">
      <div class="print-tools">
        <button type="button" class="primary" onClick={() => print()}>
          Print
        </button>
        <label for="print-size">Paper</label>
        <select id="print-size" value={size} onChange={(event) => setSize((event.target as HTMLSelectElement).value as Size)}>
          {(Object.keys(SIZES) as Size[]).map((key) => (
            <option key={key} value={key}>
              {SIZES[key]}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => history.back()}>
          Back
        </button>
      </div>
      {!target ? <p role="alert">Nothing to print at this address.</p> : target.kind === 'wave' ? <PickList waveId={target.ref} /> : <PackingSlip orderRef={target.ref} />}
    </div>
  );
}

function useLoaded<T>(load: () => Promise<T>): { data?: T; error?: string } {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  useEffect(() => {
    load().then(
      (data) => setState({ data }),
      (error: unknown) => setState({ error: describe(error) }),
    );
  }, []);
  return state;
}

/** A wave's pick list: its totes, then every stop in walking order, the unplaced items last; barcodes as text. */
function PickList({ waveId }: { waveId: string }) {
  const { data: wave, error } = useLoaded(() => api('GET', '/waves/{id}', { params: { id: waveId } }));
  if (error) return <p role="alert">{error}</p>;
  if (!wave) return <p role="status">Loading the pick list…</p>;
  const labels = new Map(wave.toteLabels.map((tote) => [tote.tote, tote.label]));
  return (
    <article class="sheet" aria-labelledby="sheet-heading">
      <h2 id="sheet-heading">Pick list: {waveLabel(wave)}</h2>
      <p>
        Made {new Date(wave.createdAt).toLocaleString()} · {wave.stops.length} stops · {Math.round(wave.distance * 10) / 10} to walk ({wave.policy})
      </p>
      <h3>Totes</h3>
      <table>
        <thead>
          <tr>
            <th scope="col">Tote</th>
            <th scope="col">Order</th>
            <th scope="col">Label</th>
          </tr>
        </thead>
        <tbody>
          {wave.orders.map((order) => (
            <tr key={order.tote}>
              <td>{order.tote}</td>
              <td>{order.orderNumber}</td>
              <td>{labels.get(order.tote) ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Stops in walking order</h3>
      <PickTable wave={wave} />
    </article>
  );
}

function PickTable({ wave }: { wave: PickerWave }) {
  return (
    <table class="pick-table">
      <thead>
        <tr>
          <th scope="col">Stop</th>
          <th scope="col">Location</th>
          <th scope="col">Product</th>
          <th scope="col">Barcode</th>
          <th scope="col">Tote</th>
          <th scope="col">Quantity</th>
        </tr>
      </thead>
      <tbody>
        {visitsOf(wave).flatMap((visit, index) =>
          visit.lines.map((line, at) => (
            <tr key={`${index}:${line.orderExternalId}:${line.productExternalId}`} class={at === 0 ? 'stop-start' : ''}>
              <td>{at === 0 ? (visit.locationCode ? index + 1 : 'After the route') : ''}</td>
              <td>{at === 0 ? (visit.locationCode ?? 'Unplaced') : ''}</td>
              <td>
                {line.name} <span class="muted">SKU {line.productSku}</span>
              </td>
              <td class="code">{line.barcode ?? ''}</td>
              <td>{line.tote}</td>
              <td>{quantityText(line.quantity, line.packagings)}</td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

/** An order's packing slip: who, what (with barcodes as text, and the lots each item got) and the tote it came in. */
function PackingSlip({ orderRef }: { orderRef: string }) {
  const { data: order, error } = useLoaded(() => api('GET', '/packing/orders/{ref}', { params: { ref: orderRef } }));
  if (error) return <p role="alert">{error}</p>;
  if (!order) return <p role="status">Loading the packing slip…</p>;
  return <Slip order={order} />;
}

function Slip({ order }: { order: PackOrder }) {
  // A column of lots only for an order that got any.
  const lotted = order.items.some((item) => item.lots);
  return (
    <article class="sheet slip" aria-labelledby="sheet-heading">
      <h2 id="sheet-heading">Packing slip: order {order.orderNumber}</h2>
      <p>
        Reference {order.externalId}
        {order.tote ? ` · tote ${order.tote.number}${order.tote.label ? ` (${order.tote.label})` : ''}` : ''}
      </p>
      {order.customer?.name && <p>For {order.customer.name}</p>}
      {order.shippingAddress && <p class="address">{order.shippingAddress}</p>}
      <table>
        <thead>
          <tr>
            <th scope="col">Quantity</th>
            <th scope="col">Product</th>
            <th scope="col">Barcode</th>
            {lotted && <th scope="col">Lots</th>}
          </tr>
        </thead>
        <tbody>
          {order.items.map((item, index) => (
            <tr key={index}>
              <td>{quantityText(item.quantity, item.packagings)}</td>
              <td>
                {item.name ?? item.productExternalId} <span class="muted">SKU {item.productSku}</span>
              </td>
              <td class="code">{item.barcode ?? ''}</td>
              {lotted && <td>{item.lots ? pickedLotsText(item.lots) : ''}</td>}
            </tr>
          ))}
        </tbody>
      </table>
      {order.carrier && (
        <p>
          {order.carrier}, tracking number {order.trackingNumber}
        </p>
      )}
    </article>
  );
}
