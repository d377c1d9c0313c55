/**
 * Whole numbers up to 2^53 mapped to non-negative integers: a Map<number, number> for the
 * dynamic programs' label keys, which exceed the small integers a Map hashes cheaply. Open
 * addressing over typed arrays; clearing is a new generation, so a table is reused aisle after
 * aisle without being refilled.
 */
export class NumberIndex {
  private keys = new Float64Array(0);
  private values = new Int32Array(0);
  /** The generation each slot was written in: a slot of an older one is empty. */
  private stamps = new Uint32Array(0);
  private generation = 1;
  private shift = 32;
  private size = 0;

  constructor(capacity = 1024) {
    this.allocate(capacity);
  }

  /** The value of `key`, or -1 when it has none. */
  get(key: number): number {
    const mask = this.keys.length - 1;
    for (let slot = this.slotOf(key); ; slot = (slot + 1) & mask) {
      if (this.stamps[slot] !== this.generation) return -1;
      if (this.keys[slot] === key) return this.values[slot]!;
    }
  }

  set(key: number, value: number): void {
    const mask = this.keys.length - 1;
    let slot = this.slotOf(key);
    for (; this.stamps[slot] === this.generation; slot = (slot + 1) & mask) {
      if (this.keys[slot] === key) {
        this.values[slot] = value;
        return;
      }
    }
    this.keys[slot] = key;
    this.values[slot] = value;
    this.stamps[slot] = this.generation;
    if (++this.size * 2 > this.keys.length) this.grow();
  }

  clear(): void {
    this.size = 0;
    if (++this.generation === 0xffffffff) {
      this.stamps.fill(0);
      this.generation = 1;
    }
  }

  private slotOf(key: number): number {
    const low = key >>> 0;
    const high = Math.floor(key / 4294967296);
    return Math.imul(low ^ Math.imul(high, 0x27d4eb2d), 0x9e3779b1) >>> this.shift;
  }

  private allocate(capacity: number): void {
    let bits = 4;
    while (1 << bits < capacity) bits++;
    this.keys = new Float64Array(1 << bits);
    this.values = new Int32Array(1 << bits);
    this.stamps = new Uint32Array(1 << bits);
    this.shift = 32 - bits;
    this.generation = 1;
    this.size = 0;
  }

  private grow(): void {
    const { keys, values, stamps, generation } = this;
    this.allocate(keys.length * 2);
    for (let slot = 0; slot < keys.length; slot++) if (stamps[slot] === generation) this.set(keys[slot]!, values[slot]!);
  }
}
