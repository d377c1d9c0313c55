#!/usr/bin/env node
// The package's command: loads the TypeScript sources through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
await main(process.argv);
