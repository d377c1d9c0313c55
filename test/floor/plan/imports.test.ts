import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PLAN = fileURLToPath(new URL('../../../src/floor/plan/', import.meta.url));

describe('floor/plan', () => {
  it('imports nothing but itself: no database, HTTP or other feature (the console app bundles it)', () => {
    const files = readdirSync(PLAN, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const source = readFileSync(join(PLAN, file), 'utf8');
      for (const [, specifier] of source.matchAll(/\bfrom '([^']+)'/g)) {
        const outside = !specifier!.startsWith('.') || relative(PLAN, resolve(dirname(join(PLAN, file)), specifier!)).startsWith('..');
        expect(outside, `${file} imports ${specifier}`).toBe(false);
      }
    }
  });
});
