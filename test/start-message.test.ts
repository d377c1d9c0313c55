import { describe, expect, it } from 'vitest';
import { browsableOrigin } from '../src/start-message';

describe('the addresses `pickport serve` prints', () => {
  it('are reached as localhost for a wildcard HOST, and as HOST otherwise', () => {
    expect(browsableOrigin('0.0.0.0', 3000)).toBe('http://localhost:3000');
    expect(browsableOrigin('::', 3000)).toBe('http://localhost:3000');
    expect(browsableOrigin('127.0.0.1', 8080)).toBe('http://127.0.0.1:8080');
    expect(browsableOrigin('::1', 3000)).toBe('http://[::1]:3000');
    expect(browsableOrigin('pick.example', 3000)).toBe('http://pick.example:3000');
  });
});
