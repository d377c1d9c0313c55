import { describe, expect, it } from 'vitest';
import { hashPin, verifyPin } from '../../src/staff/pins';

describe('PIN hashes', () => {
  it('are scrypt with their parameters and a fresh salt, match only their PIN, and never hold it', async () => {
    const [first, second] = [await hashPin('482913'), await hashPin('482913')];
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('482913');
    expect(await verifyPin('482913', first)).toBe(true);
    expect(await verifyPin('482913', second)).toBe(true);
    expect(await verifyPin('482914', first)).toBe(false);
    expect(await verifyPin('4829130', first)).toBe(false);
  });

  it('refuse a stored value that is not a scrypt hash', async () => {
    expect(await verifyPin('482913', 'plain-482913')).toBe(false);
  });
});
