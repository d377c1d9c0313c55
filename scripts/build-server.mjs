// `npm run build:server` (run by `npm install`): the server (src/main.ts and every module it
// imports) bundled by esbuild into dist/, which bin/pickport.js runs. Packages stay in node_modules.
// The modules loaded only by the commands running the service (src/server.ts and below) are split
// into chunks of their own, so that `pickport --help` and the operator commands do not load them.
// Plain JavaScript, so that building needs no TypeScript loader.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');
// Chunk names change with their content: the previous build's would stay behind.
rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // create-embedded: the child process creating and migrating the embedded database (db/pglite-create.ts).
  entryPoints: { pickport: 'src/main.ts', 'create-embedded': 'src/db/create-embedded.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  packages: 'external',
  // Error and class names as in the sources (logs and `instanceof`-free checks read them).
  keepNames: true,
  sourcemap: true,
  logLevel: 'warning',
});
