import { faceThenReserveNeeds } from './fefo';
import { routeItems, type ItemNeed, type ItemSlot, type Location } from './items';
import type { Layout, Policy } from './layout';
import { routePicks } from './walks';

/** An item of an order in a wave. */
export interface WaveItem {
  order_id: string;
  item_position: number;
  product_external_id: string;
  quantity: number;
}

/** Where a product's units stand: its own placed location (null: none), the pick faces it is taken from, and the reserve slots that may cover the rest. */
export interface ItemPlaces {
  own: Location | null;
  slots: readonly ItemSlot<Location>[];
  /** Reserve slots to take from what the faces cannot cover (the warehouse's pickFromReserve); none when left out. */
  reserve?: readonly ItemSlot<Location>[] | undefined;
}

/** A part of a wave line: what to take at one stop (1.. in walking order), or the whole line, unplaced (stop null). */
export interface WaveLinePart extends WaveItem {
  part: number;
  walk: number;
  stop: number | null;
  location_code: string | null;
  /** The lot of the part's slot ('' without one) and its expiry (null when unknown or without a lot). */
  lot: string;
  expires_on: string | null;
  aisle: number | null;
  position: number | null;
}

/** A wave's walk: its length under its policy and under S-shape, and its lines' parts in walking order. */
export interface WaveWalk {
  distance: number;
  sShapeDistance: number;
  lines: WaveLinePart[];
}

/** A share of a product's units chosen at one stop, in the order the product's lines take them. */
interface Piece {
  stop: number;
  place: Location;
  quantity: number;
}

/**
 * The lines of a wave, split into parts at the stops of one routeItems call over every product of
 * the wave (its lines' quantities summed), and the walk's length under `policy` and S-shape.
 *
 * - A product is taken from its pick faces (`slots`); what they cannot cover from its `reserve`
 *   slots, when given; what those cannot cover either is planned at its own location when that is
 *   placed (the picker looks there and records what is missing short), else added to its last
 *   part on the route; a line with no part on the route is unplaced, picked after the route.
 * - Lots are taken first expiry, first out, at the faces, then in the reserve (faceThenReserveNeeds).
 * - Several orders wanting one product share its chosen slots tote by tote (each order's items by
 *   position): the first tote takes the lots that expire first, from the stops walked first, what
 *   the slots cover before what they do not.
 * - A line has at most one part at a slot (location and lot); parts are numbered in walking order.
 */
export function planWaveLines(layout: Layout, items: readonly WaveItem[], tote: Map<string, number>, places: Map<string, ItemPlaces>, policy: Policy): WaveWalk {
  const byTote = (a: WaveItem, b: WaveItem) => tote.get(a.order_id)! - tote.get(b.order_id)! || a.item_position - b.item_position;
  const linesOf = new Map<string, WaveItem[]>();
  for (const item of [...items].sort(byTote)) linesOf.set(item.product_external_id, [...(linesOf.get(item.product_external_id) ?? []), item]);

  // Needs are named by their index; a product has a need for what its faces cover (one per expiry
  // date of its lots), then for what its reserve covers of the rest, and one for what is left at its
  // own location.
  const needs: ItemNeed<Location>[] = [];
  const productOf: string[] = [];
  const need = (product: string, quantity: number, slots: readonly ItemSlot<Location>[]) => {
    needs.push({ item: String(needs.length), quantity, slots });
    productOf.push(product);
  };
  for (const [product, lines] of linesOf) {
    const total = lines.reduce((sum, line) => sum + line.quantity, 0);
    const { own, slots, reserve = [] } = places.get(product) ?? { own: null, slots: [] };
    const { needs: dated, left } = faceThenReserveNeeds(total, slots, reserve);
    for (const { quantity, slots: ofDate } of dated) need(product, quantity, ofDate);
    if (left > 0 && own) need(product, left, [{ place: own, quantity: left }]);
  }
  const route = routeItems(layout, needs, policy);

  // Each product's pieces: its faces' stops in walking order, then its reserve's, then its own location's.
  const pieces = new Map<string, (Piece & { need: number })[]>();
  route.stops.forEach(({ place, picks }, stop) => {
    for (const pick of picks) {
      if (pick.quantity <= 0) continue;
      const product = productOf[Number(pick.item)]!;
      pieces.set(product, [...(pieces.get(product) ?? []), { stop, place, quantity: pick.quantity, need: Number(pick.item) }]);
    }
  });

  const placed: Omit<WaveLinePart, 'part' | 'walk'>[] = [];
  const unplaced: WaveItem[] = [];
  for (const [product, lines] of linesOf) {
    const queue = (pieces.get(product) ?? []).sort((a, b) => a.need - b.need || a.stop - b.stop);
    const total = lines.reduce((sum, line) => sum + line.quantity, 0);
    const chosen = queue.reduce((sum, piece) => sum + piece.quantity, 0);
    if (queue.length === 0) {
      unplaced.push(...lines);
      continue;
    }
    queue.at(-1)!.quantity += total - chosen;
    let piece = 0;
    let leftInPiece = queue[0]!.quantity;
    for (const line of lines) {
      const parts = new Map<string, Omit<WaveLinePart, 'part' | 'walk'>>();
      for (let left = line.quantity; left > 0; ) {
        if (leftInPiece === 0) leftInPiece = queue[++piece]!.quantity;
        const { stop, place } = queue[piece]!;
        const take = Math.min(left, leftInPiece);
        const slot = `${place.code}/${place.lot ?? ''}`;
        const same = parts.get(slot);
        if (same) same.quantity += take;
        else {
          const lot = { lot: place.lot ?? '', expires_on: place.expiresOn ?? null };
          parts.set(slot, { ...line, quantity: take, stop, location_code: place.code, ...lot, aisle: place.aisle, position: place.position });
        }
        left -= take;
        leftInPiece -= take;
      }
      placed.push(...parts.values());
    }
  }

  // Stops numbered 1.. among those walked to, placed parts by stop then tote, unplaced lines last.
  const stopNumber = new Map([...new Set(placed.map((line) => line.stop!))].sort((a, b) => a - b).map((stop, index) => [stop, index + 1]));
  const walked = [
    ...placed.map((line) => ({ ...line, stop: stopNumber.get(line.stop!)! })).sort((a, b) => a.stop - b.stop || byTote(a, b)),
    ...unplaced.map((line) => ({ ...line, stop: null, location_code: null, lot: '', expires_on: null, aisle: null, position: null })),
  ];
  const partsSoFar = new Map<string, number>();
  const lines: WaveLinePart[] = walked.map((line, walk) => {
    const key = `${line.order_id}:${line.item_position}`;
    const part = (partsSoFar.get(key) ?? 0) + 1;
    partsSoFar.set(key, part);
    return { ...line, part, walk };
  });
  const sShapeDistance = policy === 's-shape' ? route.distance : routePicks(layout, route.stops.map((stop) => stop.place), 's-shape').distance;
  return { distance: route.distance, sShapeDistance, lines };
}
