import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_DIST } from '../../src/console/static';
import { createTestContext, type TestContext } from '../helpers/context';

/** The budget of issue 14 for the JavaScript a handheld loads. */
const JS_BUDGET_GZIPPED = 150 * 1024;

describe('console: the built web app, as the service serves it', () => {
  let ctx: TestContext;
  let assets: string[];
  beforeAll(async () => {
    ctx = await createTestContext();
    assets = await readdir(join(CONSOLE_DIST, 'assets'));
  });
  afterAll(() => ctx.close());

  const get = (url: string) => ctx.app.inject({ method: 'GET', url });

  it('sends a browser at / to the console (302); a client asking for JSON only gets the 404 envelope', async () => {
    for (const accept of [undefined, 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', '*/*', 'application/json, text/html']) {
      const response = await ctx.app.inject({ method: 'GET', url: '/', headers: accept ? { accept } : {} });
      expect(response.statusCode, accept).toBe(302);
      expect(response.headers.location, accept).toBe('/console');
    }
    const json = await ctx.app.inject({ method: 'GET', url: '/', headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(404);
    expect(json.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });

  it('answers the app at /console and at every client route, revalidated on each load, under a same-origin CSP', async () => {
    for (const url of ['/console', '/console/', '/console/pick', '/console/supervisor?x=1', '/console/pack/deep/link']) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toMatch(/^text\/html/);
      expect(response.body, url).toContain('<div id="app">');
      expect(response.headers['cache-control'], url).toBe('no-cache');
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp, 'no other origin may be named').not.toMatch(/https?:|\*|unsafe-inline|unsafe-eval/);
    }
  });

  it('serves hashed assets for a year, and a missing asset or API route as a 404 in the envelope rather than the page', async () => {
    const script = assets.find((name) => name.endsWith('.js'));
    expect(script).toBeDefined();
    const response = await get(`/console/assets/${script}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/javascript/);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers.etag).toBeTruthy();

    for (const url of ['/console/assets/gone-1234.js', '/console/api/no-such-route']) {
      const missing = await get(url);
      expect(missing.statusCode, url).toBe(404);
      expect(missing.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    }
  });

  it('loads nothing from another origin: no remote script, style, font or image in the page or its styles', async () => {
    const page = await readFile(join(CONSOLE_DIST, 'index.html'), 'utf8');
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(page, 'no inline script (the CSP would refuse it)').not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    for (const name of assets.filter((asset) => asset.endsWith('.css'))) {
      const css = await readFile(join(CONSOLE_DIST, 'assets', name), 'utf8');
      expect(css, name).not.toMatch(/url\(\s*['"]?(https?:)?\/\/|@import/);
    }
  });

  it(`keeps all of the console's JavaScript under ${JS_BUDGET_GZIPPED / 1024} kB gzipped`, async () => {
    let total = 0;
    for (const name of assets.filter((asset) => asset.endsWith('.js'))) total += gzipSync(await readFile(join(CONSOLE_DIST, 'assets', name))).length;
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThan(JS_BUDGET_GZIPPED);
  });
});
