// `npm run build:server` (run by `npm install`): the server (src/main.ts and every module it
// imports) bundled by esbuild into dist/, which bin/pickport.js runs. Packages stay in node_modules.
// The modules loaded only by the commands running the service (src/server.ts and below) are split
// into chunks of their own, so that `pickport --help` and the operator commands do not load them.
// Plain JavaScript, so that building needs no TypeScript loader.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');
// Bundled into dist/ rather than loaded from node_modules: plain ES modules spread over hundreds of
// files each, whose loading (a read, a resolution and a compilation per file) was a large part of
// every start. Every other package stays in node_modules.
const BUNDLED = new Set(['@opentelemetry/api', 'kysely', '@sinclair/typebox', '@fastify/type-provider-typebox', 'fastify', '@fastify/swagger', '@fastify/cookie', '@fastify/fast-json-stringify-compiler', 'ajv', 'ajv-formats', 'prom-client', 'secure-json-parse', 'ipaddr.js', 'pino', 'commander']);
const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const external = Object.keys(dependencies).filter((name) => !BUNDLED.has(name)).flatMap((name) => [name, `${name}/*`]);
// Chunk names change with their content: the previous build's would stay behind.
rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // create-embedded: the child process creating and migrating the embedded database (db/pglite-create.ts);
  // planner-worker: a thread of the floor planner (floor/planner/worker.ts).
  entryPoints: { pickport: 'src/main.ts', 'create-embedded': 'src/db/create-embedded.ts', 'planner-worker': 'src/floor/planner/worker.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external,
  // No `keepNames`: it wraps every function the bundle defines in a call that sets its name, and
  // bundled Fastify defines callbacks at every request. Without it, esbuild renames a top-level
  // class or function only where two modules of a chunk share its name (commander's `CommanderError`
  // becomes `CommanderError2`, prom-client's `Counter` `Counter3`), which nothing of the service
  // shows: commander prints its errors' messages, prom-client names metrics by their `name` option,
  // and this service's own error classes keep theirs.
  sourcemap: true,
  banner: { js: "import { createRequire as __pickportRequire } from 'node:module'; const require = __pickportRequire(import.meta.url);" },
  logLevel: 'warning',
});
