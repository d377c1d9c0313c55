import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_STATUS } from '../../src/http/errors';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

describe('docs/errors.md', () => {
  it('has a section for every code the API sends, and none for a code it does not', () => {
    const sections = [...doc.matchAll(/^### ([A-Z_]+)$/gm)].map((match) => match[1]);
    expect(sections.sort()).toEqual([...ERROR_CODES].sort());
  });

  it('gives each code the one status it always comes with, and an anchor to its section', () => {
    for (const code of ERROR_CODES) {
      expect(doc).toContain(`| [\`${code}\`](#${code.toLowerCase()}) | ${ERROR_STATUS[code]} |`);
      expect(doc).toMatch(new RegExp(`^### ${code}\\n\\n${ERROR_STATUS[code]}[.,]`, 'm'));
    }
  });
});
