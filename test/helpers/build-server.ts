import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Vitest's global setup: builds dist/ from the sources under test before any test runs. The tests
 * that start `pickport` processes run bin/pickport.js, which runs dist/ as shipped; a build older
 * than the sources would make it fall back to them (and say so on stderr).
 */
export default function buildServer(): void {
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: fileURLToPath(new URL('../../', import.meta.url)), stdio: 'inherit' });
}
