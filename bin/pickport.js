#!/usr/bin/env node
// The package's command. It runs the built server (dist/, made by `npm install` and
// `npm run build:server`); where src/ has changed since that build, as in a checkout being edited,
// it runs the sources through tsx instead (slower to start), and says so on stderr.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');
const built = join(root, 'dist', 'pickport.js');

/** Modification time (ms) of the newest file under `dir`. */
function newestIn(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

const builtAt = statSync(built, { throwIfNoEntry: false })?.mtimeMs;
let entry = built;
if (builtAt === undefined || newestIn(join(root, 'src')) > builtAt) {
  console.error('pickport: dist/ is older than src/ (or missing): running the sources through tsx; `npm run build:server` builds them');
  const { register } = await import('tsx/esm/api');
  register();
  entry = join(root, 'src', 'main.ts');
} else {
  // Stack traces name the sources' files and lines.
  process.setSourceMapsEnabled(true);
}
const { main } = await import(pathToFileURL(entry).href);
await main(process.argv);
