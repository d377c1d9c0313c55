import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** What npm runs when a package is installed from its tarball (and warns about, unless allowed). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];

describe('@pickport/client as an integrator installs it', () => {
  it('carries no install script: its tarball installs without running anything (npm pack builds it instead)', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../packages/client/package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(Object.keys(manifest.scripts).filter((name) => INSTALL_SCRIPTS.includes(name))).toEqual([]);
    expect(manifest.scripts.prepack).toBe('npm run build');
  });
});
