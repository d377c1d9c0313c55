import { useRef, useState } from 'preact/hooks';
import { focusSoon } from './focus';
import { api, ApiError, describe, type PackOrder } from './api';
import { accepted, rejected } from './feedback';
import { PrintLink } from './print';
import { useScanner } from './scanner';
import { quantityText, readScan, scannedUnits } from '../../../src/catalog/scan';
import { useSettings } from './settings';
import { pickedLotsText } from './text';

type Item = PackOrder['items'][number];

const itemName = (item: Item) => item.name ?? item.productExternalId;

/** The lots an item got, once picked from slots of lots: what goes on the slip and in a recall. */
const ItemLots = ({ item }: { item: Item }) => (item.lots ? <span class="item-lots">Lots: {pickedLotsText(item.lots)}</span> : null);

/**
 * The pack station: scan the order's number, its reference (externalId) or its tote's label; then scan each
 * item as it goes in the box (or tick it), mark the order packed and dispatch it with the carrier
 * and tracking number. Every scan goes to "Scan order", and focus returns there after each action
 * unless the packer has moved it into another field.
 */
export function Packer() {
  const settings = useSettings();
  const [order, setOrder] = useState<PackOrder | null>(null);
  // A ref as well as state: two scans may arrive before the screen redraws.
  const checked = useRef<number[]>([]);
  const [counts, setCounts] = useState<number[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const scan = useRef<HTMLInputElement>(null);
  const focusScan = () => focusSoon(scan);

  const show = (next: PackOrder) => {
    if (next.externalId !== order?.externalId || next.status !== order.status) setChecked(next.items.map(() => 0));
    setOrder(next);
  };
  const setChecked = (next: number[]) => {
    checked.current = next;
    setCounts(next);
  };
  const refuse = (text: string) => {
    rejected();
    setNotice('');
    setError(text);
  };

  const run = async (action: () => Promise<PackOrder>, done?: (order: PackOrder) => string) => {
    setBusy(true);
    try {
      const next = await action();
      show(next);
      setError(null);
      setNotice(done?.(next) ?? '');
      return true;
    } catch (failure) {
      refuse(describe(failure));
      return false;
    } finally {
      setBusy(false);
      focusScan();
    }
  };

  const pack = (current: PackOrder) =>
    run(
      () => api('POST', '/packing/orders/{externalId}/pack', { params: { externalId: current.externalId } }),
      (next) => `Order ${next.orderNumber} packed.`,
    );

  /**
   * Checks the units a scan counts (one, a packaging's quantity, a GS1 count) of the open order's
   * item it names (scan.ts); false when no item has it.
   */
  const checkUnit = (code: string): boolean => {
    if (order?.status !== 'PICKED') return false;
    const scan = readScan(code);
    const matching = order.items.flatMap((item, index) => {
      const scanned = scannedUnits(item, scan);
      return scanned ? [{ item, index, units: scanned.units }] : [];
    });
    if (matching.length === 0) return false;
    const open = matching.find(({ item, index }) => (checked.current[index] ?? 0) < item.quantity);
    if (!open) {
      refuse(`Every ${itemName(matching[0]!.item)} of order ${order.orderNumber} is already checked: this one is extra.`);
      return true;
    }
    const left = open.item.quantity - (checked.current[open.index] ?? 0);
    if (open.units > left) {
      refuse(`That scan counts ${open.units} × ${itemName(open.item)}, but ${left} ${left === 1 ? 'is' : 'are'} left to check: scan single units.`);
      return true;
    }
    const next = checked.current.map((count, index) => (index === open.index ? count + open.units : count));
    setChecked(next);
    accepted();
    setError(null);
    const complete = order.items.every((item, index) => (next[index] ?? 0) >= item.quantity);
    setNotice(`Checked ${next[open.index]} of ${open.item.quantity} × ${itemName(open.item)}.${complete ? ' Every item is in the box.' : ''}`);
    if (complete && settings?.packOnLastScan) void pack(order);
    return true;
  };

  const onScan = async (code: string) => {
    focusScan();
    if (!code || checkUnit(code)) return;
    try {
      const found = await api('GET', '/packing/orders/{ref}', { params: { ref: code } });
      accepted();
      show(found);
      setError(null);
      setNotice('');
    } catch (failure) {
      if (!(failure instanceof ApiError && failure.status === 404)) return refuse(describe(failure));
      // The open order stays open: a wrong item must not lose the packer's place.
      refuse(
        order?.status === 'PICKED'
          ? `${code} is not in order ${order.orderNumber}, nor an order or a tote label. Keep it out of the box.`
          : `No order, tote label or item ${code}.`,
      );
    }
  };
  useScanner((code) => void onScan(code));

  const typed = (event: Event) => {
    event.preventDefault();
    const input = scan.current;
    const code = input?.value.trim() ?? '';
    // Emptied whatever the answer: a failed lookup's text must not be added to by the next scan.
    if (input) input.value = '';
    void onScan(code);
  };

  return (
    <section class="packer" aria-labelledby="packing-heading">
      <h2 id="packing-heading">Packing</h2>
      <form onSubmit={typed} class="scan-form">
        <label for="scan-order">Scan order</label>
        <div class="row">
          <input id="scan-order" ref={scan} autoFocus autocomplete="off" autocapitalize="off" spellcheck={false} aria-describedby="scan-order-help" />
          <button type="submit" disabled={busy}>
            Find order
          </button>
        </div>
        <p id="scan-order-help" class="muted">
          An order number, its reference or a tote label; then each item's barcode.
        </p>
      </form>
      <p role="alert" class="message error">
        {error ?? ''}
      </p>
      <p role="status" class="message info">
        {notice}
      </p>
      {order && (
        <OrderCard
          key={`${order.externalId}:${order.status}`}
          order={order}
          counts={counts}
          busy={busy}
          onCheck={(index, all) => {
            setChecked(checked.current.map((count, at) => (at === index ? (all ? (order.items[index]?.quantity ?? 0) : 0) : count)));
            focusScan();
          }}
          onPack={() => void pack(order)}
          onDispatch={(carrier, trackingNumber) =>
            void run(
              () => api('POST', '/packing/orders/{externalId}/dispatch', { params: { externalId: order.externalId }, body: { carrier, trackingNumber } }),
              (next) => `Order ${next.orderNumber} dispatched.`,
            )
          }
        />
      )}
    </section>
  );
}

interface CardProps {
  order: PackOrder;
  /** Units checked into the box, by item. */
  counts: number[];
  busy: boolean;
  onCheck(index: number, all: boolean): void;
  onPack(): void;
  onDispatch(carrier: string, trackingNumber: string): void;
}

function OrderCard({ order, counts, busy, onCheck, onPack, onDispatch }: CardProps) {
  const [carrier, setCarrier] = useState('');
  const [tracking, setTracking] = useState('');
  const allChecked = order.items.every((item, index) => (counts[index] ?? 0) >= item.quantity);
  const dispatch = (event: Event) => {
    event.preventDefault();
    onDispatch(carrier.trim(), tracking.trim());
  };

  return (
    <article class="order-card" aria-labelledby="order-heading">
      <h3 id="order-heading">
        Order {order.orderNumber} <span class={`badge status-${order.status}`}>{order.status}</span>
      </h3>
      <p class="muted">Reference {order.externalId}</p>
      <PrintLink to={`/console/print/slip/${encodeURIComponent(order.externalId)}`} label="Print packing slip" />
      {order.tote && (
        <p class="tote-tag">
          Tote {order.tote.number}
          {order.tote.label ? ` · label ${order.tote.label}` : ''}
        </p>
      )}
      {order.status === 'PICKED' ? (
        <fieldset class="items">
          <legend>Scan or tick each item as it goes in the box</legend>
          {order.items.map((item, index) => (
            <label key={index} class="check">
              <input type="checkbox" checked={(counts[index] ?? 0) >= item.quantity} disabled={item.quantity === 0} onChange={(event) => onCheck(index, (event.target as HTMLInputElement).checked)} />
              <span>
                {quantityText(item.quantity, item.packagings)} × {itemName(item)} <span class="muted">SKU {item.productSku}</span>{' '}
                <strong class="item-count">{item.quantity === 0 ? 'none picked: nothing to pack' : `${Math.min(counts[index] ?? 0, item.quantity)} of ${item.quantity}`}</strong>
                <ItemLots item={item} />
              </span>
            </label>
          ))}
        </fieldset>
      ) : (
        <ul class="items" aria-label="Items">
          {order.items.map((item, index) => (
            <li key={index}>
              {quantityText(item.quantity, item.packagings)} × {itemName(item)} <span class="muted">SKU {item.productSku}</span>
              <ItemLots item={item} />
            </li>
          ))}
        </ul>
      )}
      {order.status === 'PICKED' && (
        <>
          {!allChecked && <p class="muted">Scan or tick every item to mark the order packed.</p>}
          <button type="button" class="primary big" disabled={busy || !allChecked} onClick={onPack}>
            Mark packed
          </button>
        </>
      )}
      {order.status === 'PACKED' && (
        <form class="dispatch" onSubmit={dispatch}>
          <label for="carrier">Carrier</label>
          <input id="carrier" required maxLength={100} value={carrier} onInput={(e) => setCarrier((e.target as HTMLInputElement).value)} />
          <label for="tracking">Tracking number</label>
          <input id="tracking" required maxLength={100} autocomplete="off" value={tracking} onInput={(e) => setTracking((e.target as HTMLInputElement).value)} />
          <button type="submit" class="primary big" disabled={busy}>
            Dispatch
          </button>
        </form>
      )}
      {order.status === 'DISPATCHED' && (
        <p role="status">
          Dispatched with {order.carrier}, tracking number {order.trackingNumber}.
        </p>
      )}
      {!['PICKED', 'PACKED', 'DISPATCHED'].includes(order.status) && <p role="status">This order is {order.status}: it can be packed once it is PICKED.</p>}
    </article>
  );
}
