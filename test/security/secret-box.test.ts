import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { open, seal } from '../../src/security/secret-box';

describe('secret box: AES-256-GCM with associated data', () => {
  const key = randomBytes(32);

  it('opens what it sealed, with a fresh IV each time', () => {
    const a = seal(key, 'päss wörd', 'row/1');
    const b = seal(key, 'päss wörd', 'row/1');
    expect(a).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(a).not.toBe(b);
    expect(open(key, a, 'row/1')).toBe('päss wörd');
    expect(open(key, seal(key, '', 'row/1'), 'row/1')).toBe('');
  });

  it('refuses other associated data, another key, an altered ciphertext and foreign formats', () => {
    const sealed = seal(key, 'secret', 'row/1');
    expect(() => open(key, sealed, 'row/2')).toThrow();
    expect(() => open(randomBytes(32), sealed, 'row/1')).toThrow();
    const [version, iv, tag, ciphertext] = sealed.split('.') as [string, string, string, string];
    const flipped = Buffer.from(ciphertext, 'base64url');
    flipped[0]! ^= 1;
    expect(() => open(key, [version, iv, tag, flipped.toString('base64url')].join('.'), 'row/1')).toThrow();
    expect(() => open(key, '{"plain":"json"}', 'row/1')).toThrow();
    expect(() => open(key, `${sealed}.extra`, 'row/1')).toThrow();
  });
});
