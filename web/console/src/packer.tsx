import { useRef, useState } from 'preact/hooks';
import { api, describe, type PackOrder } from './api';
import { accepted, rejected } from './feedback';

/**
 * The pack station: scan the order's number (or externalId) off the tote, tick each item as it
 * goes in the box, mark it packed, then dispatch it with the carrier and tracking number.
 */
export function Packer() {
  const [order, setOrder] = useState<PackOrder | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const scan = useRef<HTMLInputElement>(null);

  const run = async (action: () => Promise<PackOrder>) => {
    setBusy(true);
    setError(null);
    try {
      setOrder(await action());
      return true;
    } catch (failure) {
      rejected();
      setError(describe(failure));
      return false;
    } finally {
      setBusy(false);
    }
  };

  const find = async (event: Event) => {
    event.preventDefault();
    const ref = scan.current?.value.trim() ?? '';
    if (!ref) return;
    setOrder(null);
    if (await run(() => api('GET', '/packing/orders/{ref}', { params: { ref } }))) {
      accepted();
      if (scan.current) scan.current.value = '';
    }
  };

  return (
    <section class="packer" aria-labelledby="packing-heading">
      <h2 id="packing-heading">Packing</h2>
      <form onSubmit={find} class="scan-form">
        <label for="scan-order">Scan order</label>
        <div class="row">
          <input id="scan-order" ref={scan} autoFocus autocomplete="off" autocapitalize="off" spellcheck={false} />
          <button type="submit" disabled={busy}>
            Find order
          </button>
        </div>
      </form>
      <p role="alert" class="message error">
        {error ?? ''}
      </p>
      {order && (
        <OrderCard
          key={`${order.externalId}:${order.status}`}
          order={order}
          busy={busy}
          onPack={() => run(() => api('POST', '/packing/orders/{externalId}/pack', { params: { externalId: order.externalId } }))}
          onDispatch={(carrier, trackingNumber) =>
            run(() => api('POST', '/packing/orders/{externalId}/dispatch', { params: { externalId: order.externalId }, body: { carrier, trackingNumber } }))
          }
        />
      )}
    </section>
  );
}

interface CardProps {
  order: PackOrder;
  busy: boolean;
  onPack(): void;
  onDispatch(carrier: string, trackingNumber: string): void;
}

function OrderCard({ order, busy, onPack, onDispatch }: CardProps) {
  const [checked, setChecked] = useState<Set<number>>(new Set());
  const [carrier, setCarrier] = useState('');
  const [tracking, setTracking] = useState('');
  const allChecked = checked.size === order.items.length;
  const toggle = (index: number) => {
    const next = new Set(checked);
    if (!next.delete(index)) next.add(index);
    setChecked(next);
  };
  const dispatch = (event: Event) => {
    event.preventDefault();
    onDispatch(carrier.trim(), tracking.trim());
  };

  return (
    <article class="order-card" aria-labelledby="order-heading">
      <h3 id="order-heading">
        Order {order.orderNumber} <span class={`badge status-${order.status}`}>{order.status}</span>
      </h3>
      <p class="muted">externalId {order.externalId}</p>
      {order.status === 'PICKED' ? (
        <fieldset class="items">
          <legend>Check each item as it goes in the box</legend>
          {order.items.map((item, index) => (
            <label key={index} class="check">
              <input type="checkbox" checked={checked.has(index)} onChange={() => toggle(index)} />
              <span>
                {item.quantity} × {item.name ?? item.productExternalId} <span class="muted">SKU {item.productSku}</span>
              </span>
            </label>
          ))}
        </fieldset>
      ) : (
        <ul class="items" aria-label="Items">
          {order.items.map((item, index) => (
            <li key={index}>
              {item.quantity} × {item.name ?? item.productExternalId} <span class="muted">SKU {item.productSku}</span>
            </li>
          ))}
        </ul>
      )}
      {order.status === 'PICKED' && (
        <>
          {!allChecked && <p class="muted">Tick every item to mark the order packed.</p>}
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
