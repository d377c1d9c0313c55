import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

interface Manifest {
  name?: string;
  version?: string;
  engines?: { node?: string };
  workspaces?: string[];
}

const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** Every package installed under `nodeModules`, nested node_modules included: its folder. */
function installedPackages(nodeModules: string): string[] {
  if (!existsSync(nodeModules)) return [];
  return readdirSync(nodeModules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => {
      const dir = join(nodeModules, name);
      if (name.startsWith('@')) return installedPackages(dir);
      if (!existsSync(join(dir, 'package.json'))) return [];
      return [dir, ...installedPackages(join(dir, 'node_modules'))];
    });
}

/**
 * package.json's `engines.node` is the range of Node versions the service runs on. Every installed
 * package (of the root and of the workspaces, development tools included, as `npm install` in CI
 * installs them all) must run on every version of it: npm warns (EBADENGINE) when one does not on
 * the Node at hand, and a dependency asking for a newer Node than we declare is one that may
 * break on the Node we say is enough. A dependency that excludes part of the range fails here,
 * naming it, so that it is pinned to a release that supports the range (docs/architecture.md,
 * "Node version").
 */
describe('engines', () => {
  it("every installed package supports all of package.json's engines.node", () => {
    const declared = manifest(ROOT).engines?.node;
    expect(declared).toBeDefined();
    const workspaces = (manifest(ROOT).workspaces ?? []).flatMap((pattern) => {
      const parent = join(ROOT, pattern.replace(/\/\*$/, ''));
      return readdirSync(parent).map((name) => join(parent, name));
    });
    const folders = [join(ROOT, 'node_modules'), ...workspaces.map((dir) => join(dir, 'node_modules'))].flatMap(installedPackages);
    expect(folders.length).toBeGreaterThan(100);
    const excluding = folders.flatMap((dir) => {
      const { name, version, engines } = manifest(dir);
      return engines?.node && !semver.subset(declared!, engines.node)
        ? [`${name}@${version} (${dir.slice(ROOT.length + 1)}) needs node ${engines.node}`]
        : [];
    });
    expect(excluding, `declared: node ${declared}`).toEqual([]);
  });
});
