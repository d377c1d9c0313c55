import { beforeAll, describe, expect, it } from 'vitest';
import type { OpenAPI3 } from 'openapi-typescript';
import { committed, GENERATED_FILES, REGENERATE, render, servedDocument } from '../../packages/client/scripts/generate';
import { committedConsoleTypes, CONSOLE_TYPES, REGENERATE_CONSOLE, renderConsoleTypes } from '../../web/console/scripts/generate';

let served: OpenAPI3;
beforeAll(async () => {
  served = await servedDocument();
}, 60_000);

describe('the client package generated files', () => {
  it('match the OpenAPI document the service serves now', async () => {
    const [now, before] = await Promise.all([render(served), committed()]);
    const stale = [now.document !== before.document && GENERATED_FILES.document, now.types !== before.types && GENERATED_FILES.types].filter(Boolean);
    expect(stale, `The API changed since the client was generated; run \`${REGENERATE}\` and commit the result`).toEqual([]);
  }, 60_000);
});

describe("the console's generated API types", () => {
  it("match the console's operations in the document the service serves now", async () => {
    const [now, before] = await Promise.all([renderConsoleTypes(served), committedConsoleTypes()]);
    expect(now === before, `The console API changed since ${CONSOLE_TYPES} was generated; run \`${REGENERATE_CONSOLE}\` and commit the result`).toBe(true);
  }, 60_000);

  it('cover every console route and nothing else', async () => {
    const consolePaths = Object.keys(served.paths ?? {}).filter((path) => path.startsWith('/console/api/'));
    expect(consolePaths.length).toBeGreaterThan(0);
    const types = await renderConsoleTypes(served);
    for (const path of consolePaths) expect(types).toContain(`    "${path.slice('/console/api'.length)}": {`);
    expect(types).not.toContain('"/api/v1/');
  }, 60_000);
});
