import { grownTo } from './labels';

/**
 * Combinations of units taken of each item, numbered as they are met. Where an order's
 * combinations are too many to number in advance (a mixed-radix code would outgrow what a double
 * holds exactly), the covering program's labels carry a combination's number here instead. A
 * combination is found again by a sum of its units times a fixed number per item (exact in a
 * double, and changed by a unit in constant time), checked digit by digit.
 *
 * A combination is built in a scratch copy (`open`, `raise`, `close`), so that one dropped after
 * its bound is checked is never numbered.
 */
export class CodeBook {
  /** Units taken, item by item, code after code. */
  private digits: Uint8Array;
  private hashes: Float64Array;
  /** By code: the next code of the same hash, -1 for none. */
  private sameHash: Int32Array;
  private readonly firstOfHash = new Map<number, number>();
  private readonly factors: Float64Array;
  private readonly scratch: Uint8Array;
  private scratchHash = 0;
  /** Codes numbered so far: 0 is nothing taken. */
  count = 0;

  /** Units per item at most: a digit is a byte. */
  static readonly MOST_UNITS = 255;

  /** Whether a book can number the combinations of this many items: their hashes must stay exact. */
  static holds(items: number): boolean {
    return items * CodeBook.MOST_UNITS * 2 ** 32 <= Number.MAX_SAFE_INTEGER;
  }

  constructor(private readonly items: number) {
    this.factors = Float64Array.from({ length: items }, (_, item) => hashFactor(item));
    this.scratch = new Uint8Array(items);
    this.digits = new Uint8Array(1024 * items);
    this.hashes = new Float64Array(1024);
    this.sameHash = new Int32Array(1024);
    this.close();
  }

  unitsTaken(code: number, item: number): number {
    return this.digits[code * this.items + item]!;
  }

  /** Starts a combination from `code`'s. */
  open(code: number): void {
    this.scratch.set(this.digits.subarray(code * this.items, (code + 1) * this.items));
    this.scratchHash = this.hashes[code]!;
  }

  /** The units taken of `item` in the combination being built. */
  taken(item: number): number {
    return this.scratch[item]!;
  }

  /** Sets the units taken of `item` in the combination being built. */
  raise(item: number, units: number): void {
    this.scratchHash += (units - this.scratch[item]!) * this.factors[item]!;
    this.scratch[item] = units;
  }

  /** The code of the combination built: the one it was given when first met, or a new one. */
  close(): number {
    for (let code = this.firstOfHash.get(this.scratchHash) ?? -1; code >= 0; code = this.sameHash[code]!) {
      if (this.sameDigits(code)) return code;
    }
    const code = this.count++;
    if (code === this.hashes.length) this.grow();
    this.digits.set(this.scratch, code * this.items);
    this.hashes[code] = this.scratchHash;
    this.sameHash[code] = this.firstOfHash.get(this.scratchHash) ?? -1;
    this.firstOfHash.set(this.scratchHash, code);
    return code;
  }

  private sameDigits(code: number): boolean {
    const at = code * this.items;
    for (let item = 0; item < this.items; item++) if (this.digits[at + item] !== this.scratch[item]) return false;
    return true;
  }

  private grow(): void {
    this.digits = grownTo(this.digits, 2 * this.digits.length);
    this.hashes = grownTo(this.hashes, 2 * this.hashes.length);
    this.sameHash = grownTo(this.sameHash, 2 * this.sameHash.length);
  }
}

/** A fixed, well-spread number below 2^32 for each item: sums of up to 255 units of each of the items a book `holds` stay exact. */
function hashFactor(item: number): number {
  let x = Math.imul(item + 1, 0x9e3779b1);
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}
