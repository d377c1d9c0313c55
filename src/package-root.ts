import { fileURLToPath } from 'node:url';

/**
 * The package's folder, where the files read at run time are found (package.json, the migrations,
 * the built console). Computed here, one folder below it, because the built server
 * (dist/*.js, see scripts/build-server.mjs) is one folder below it too, whichever file of dist/
 * this code lands in: a path relative to any deeper module would differ between the two.
 */
export const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));
