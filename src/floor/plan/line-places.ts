import { fefoNeeds } from './fefo';
import { nearestSlots, type ItemSlot, type Location } from './items';
import type { Layout, Place } from './layout';

/**
 * Where a line is taken from before its wave's route chooses: first expiry, first out (fefoNeeds),
 * each expiry date's slots nearest the depot that hold it, and the product's own place for what
 * they cannot; without slots, its own place.
 */
export function placesOfLine(layout: Layout, quantity: number, slots: readonly ItemSlot<Location>[], own: Place | null): Place[] {
  if (slots.length === 0) return own ? [own] : [];
  const { needs, left } = fefoNeeds(quantity, slots);
  const { chosen } = nearestSlots(layout, needs.map((need, date) => ({ item: String(date), ...need })));
  const places: Place[] = chosen.map(({ aisle, position }) => ({ aisle, position }));
  if (left > 0 && own) places.push(own);
  return places;
}
