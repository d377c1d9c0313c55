import { mulberry32 } from '../../src/floor/plan/random';

/*
 * A large two-block floor as a warehouse that keeps each product at many places has it: 50 aisles
 * of 180 positions with one middle cross aisle, 40 products at about 29 slots each, and orders of
 * a few of them. Generated from a seed, so that a test and the planning bench meet the same floor.
 */

export const LARGE_LAYOUT = {
  aisles: 50,
  positionsPerAisle: 180,
  aisleSpacing: 3,
  positionSpacing: 1,
  crossAisleOffset: 2,
  depotAisle: 25,
  crossAisles: [{ afterPosition: 90, width: 2 }],
};

const PRODUCTS = 40;
const SLOTS_PER_PRODUCT = 29;

export interface LargeFloor {
  locations: { code: string; aisle: number; position: number }[];
  products: { externalId: string; sku: string; name: string; stock: number }[];
  slots: { productExternalId: string; locationCode: string; quantity: number }[];
}

/** The floor's locations, products and slots: each product at SLOTS_PER_PRODUCT distinct places, 1 to 4 units at each. */
export function largeFloor(seed = 1): LargeFloor {
  const random = mulberry32(seed);
  const used = new Set<string>();
  const locations: LargeFloor['locations'] = [];
  const slots: LargeFloor['slots'] = [];
  const products: LargeFloor['products'] = [];
  for (let p = 0; p < PRODUCTS; p++) {
    const externalId = `LF-${p}`;
    let stock = 0;
    for (let s = 0; s < SLOTS_PER_PRODUCT; s++) {
      let aisle: number;
      let position: number;
      do {
        aisle = 1 + Math.floor(random() * LARGE_LAYOUT.aisles);
        position = 1 + Math.floor(random() * LARGE_LAYOUT.positionsPerAisle);
      } while (used.has(`${aisle}-${position}`));
      used.add(`${aisle}-${position}`);
      const code = `${aisle}-${position}`;
      const quantity = 1 + Math.floor(random() * 4);
      locations.push({ code, aisle, position });
      slots.push({ productExternalId: externalId, locationCode: code, quantity });
      stock += quantity;
    }
    products.push({ externalId, sku: `SKU-${externalId}`, name: `Large floor product ${p}`, stock });
  }
  return { locations, products, slots };
}

/** `count` items of distinct products of the large floor (1 to 3 units each), drawn from `random`. */
export function largeFloorItems(random: () => number, count: number): { productExternalId: string; quantity: number }[] {
  const chosen = new Set<number>();
  while (chosen.size < Math.min(count, PRODUCTS)) chosen.add(Math.floor(random() * PRODUCTS));
  return [...chosen].map((p) => ({ productExternalId: `LF-${p}`, quantity: 1 + Math.floor(random() * 3) }));
}
