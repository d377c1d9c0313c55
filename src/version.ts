import { readFileSync } from 'node:fs';

/** The service's version, from package.json. */
export const SERVICE_VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;
