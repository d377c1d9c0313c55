import { describe, expect, it } from 'vitest';
import { committed, GENERATED_FILES, REGENERATE, render, servedDocument } from '../../packages/client/scripts/generate';

describe('the client package generated files', () => {
  it('match the OpenAPI document the service serves now', async () => {
    const [now, before] = await Promise.all([servedDocument().then(render), committed()]);
    const stale = [now.document !== before.document && GENERATED_FILES.document, now.types !== before.types && GENERATED_FILES.types].filter(Boolean);
    expect(stale, `The API changed since the client was generated; run \`${REGENERATE}\` and commit the result`).toEqual([]);
  }, 60_000);
});
