import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The console is built once, at install time (`npm run build:console`, run by `prepare`), into
 * web/console/dist, which the service serves at /console (src/console/static.ts).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The service's Content-Security-Policy allows no inline script; the polyfill is not needed by
    // the browsers a handheld runs today.
    modulePreload: { polyfill: false },
    target: 'es2022',
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
