import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../http/errors';
import { PACKAGE_ROOT } from '../package-root';

/** Where `npm run build:console` (run by `npm install`) writes the web app. */
export const CONSOLE_DIST = join(PACKAGE_ROOT, 'web/console/dist/');
export const CONSOLE_PREFIX = '/console';

/**
 * Everything the console loads comes from this origin: no inline script or style, no other host,
 * not framed. Its API calls go to the same origin (`connect-src 'self'`).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Serves the built console at /console. Hashed assets (`/console/assets/*`) never change under
 * their name, so browsers keep them a year; index.html is revalidated on every load (ETag), so a
 * new build reaches handhelds at their next reload. Any other path under /console is a client
 * route of the app and gets index.html, except under /console/api and /console/assets, which stay
 * the service's plain 404 (a stale page asking for a file gone must not be handed HTML).
 */
export async function consoleStatic(app: FastifyInstance, options: { root?: string } = {}): Promise<void> {
  const root = options.root ?? CONSOLE_DIST;
  // A browser at the service's address lands on the console; a client asking for JSON (and not
  // HTML) keeps the API's 404 envelope, as for any other unknown path.
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const accept = request.headers.accept ?? '';
    if (accept.includes('application/json') && !accept.includes('text/html')) return reply.callNotFound();
    return reply.redirect(CONSOLE_PREFIX, 302);
  });
  if (!existsSync(`${root}/index.html`)) {
    const notBuilt = async () => {
      throw new ApiError('SERVICE_UNAVAILABLE', 'The console is not built: run `npm run build:console` (npm install does it)');
    };
    app.get(CONSOLE_PREFIX, { schema: { hide: true } }, notBuilt);
    app.get(`${CONSOLE_PREFIX}/*`, { schema: { hide: true } }, notBuilt);
    return;
  }

  await app.register(fastifyStatic, {
    root,
    prefix: `${CONSOLE_PREFIX}/`,
    // One route per file found at start (the build is done by then), so anything else falls through
    // to the client-route fallback below instead of a 404 from the file server.
    wildcard: false,
    index: false,
    cacheControl: false,
    // Also called for index.html sent by the fallback below. It is handed the raw response.
    setHeaders: (response, path) => {
      response.setHeader('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      response.setHeader('content-security-policy', CONSOLE_CSP);
      response.setHeader('x-content-type-options', 'nosniff');
      response.setHeader('referrer-policy', 'same-origin');
    },
  });

  const page = (_request: unknown, reply: FastifyReply) => reply.sendFile('index.html');
  app.get(CONSOLE_PREFIX, { schema: { hide: true } }, page);
  app.get(`${CONSOLE_PREFIX}/*`, { schema: { hide: true } }, (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (path.startsWith(`${CONSOLE_PREFIX}/api/`) || path.startsWith(`${CONSOLE_PREFIX}/assets/`)) return reply.callNotFound();
    return page(request, reply);
  });
}
