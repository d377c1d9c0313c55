import { SETTLE_MARGIN_MS } from '../../src/db/settled';

/** Polls `condition` until it holds or the deadline passes (then fails with `what`). */
export async function waitFor<T>(what: string, condition: () => T | Promise<T>, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until the writes made so far show in listings by updatedAt (src/db/settled.ts). */
export const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MARGIN_MS + 50));
