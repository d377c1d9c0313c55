import { fileURLToPath } from 'node:url';
import { cruise, type IForbiddenRuleType, type IViolation } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

/*
 * The layers of src/ (docs/architecture.md, Layout): the core (http/, events/, db/, security/ and the leaf
 * modules config.ts, version.ts, api-prefixes.ts and package-root.ts) at the bottom, the features
 * above it, and app.ts, server.ts and main.ts wiring them together at the top. Arrows point down only, and nowhere in a circle.
 * dependency-cruiser resolves every import the way TypeScript does, type-only imports included,
 * and checks the rules below. A `declare module` augmentation is not an import: it is how a
 * feature fills in an interface the core declares (the tables of db/schema.ts, the permissions of
 * http/auth.ts), an arrow from the feature down to the core.
 */

/** What the core may import: itself and the leaf modules beside it. */
const CORE = '^src/(http|events|db|security)/|^src/(config|version|api-prefixes|package-root)\\.ts$';
/** The top: only the entry points import it (main.ts imports server.ts and app.ts, server.ts app.ts). */
const WIRING = '^src/(app|server|main)\\.ts$';

const RULES: IForbiddenRuleType[] = [
  {
    name: 'no-circular',
    comment: 'No import circle, type-only imports included: a circle has no module to read first.',
    severity: 'error',
    from: { path: '^src/' },
    to: { circular: true },
  },
  {
    name: 'core-imports-only-core',
    comment: 'The HTTP and database core must be readable without any feature: a feature provides what the core declares, and app.ts wires it.',
    severity: 'error',
    from: { path: '^src/(http|events|db|security)/' },
    to: { path: '^src/', pathNot: CORE },
  },
  {
    name: 'nothing-imports-the-wiring',
    comment: 'Features and the core never import app.ts, server.ts or main.ts, which load everything.',
    severity: 'error',
    from: { path: '^src/[^/]+/' },
    to: { path: WIRING },
  },
  {
    name: 'resolvable',
    comment: 'Every relative import resolves, so that no arrow escapes the other rules unseen.',
    severity: 'error',
    from: { path: '^src/' },
    to: { couldNotResolve: true, dependencyTypes: ['local'] },
  },
];

const root = fileURLToPath(new URL('..', import.meta.url));

describe('architecture: the import graph of src/', () => {
  it('has no import circle, no arrow from the core into a feature and no import of the wiring', { timeout: 30_000 }, async () => {
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const tsConfig = extractTSConfig('tsconfig.json');
      const { output } = await cruise(
        ['src'],
        {
          validate: true,
          ruleSet: { forbidden: RULES },
          tsPreCompilationDeps: true,
          tsConfig: { fileName: 'tsconfig.json' },
          doNotFollow: { path: 'node_modules' },
        },
        { extensions: ['.ts', '.js', '.json'] },
        { tsConfig },
      );
      if (typeof output === 'string') throw new Error('dependency-cruiser answered text, not a cruise result');
      const { violations, totalCruised } = output.summary;
      // Everything under src/ was read, not an empty or misresolved graph.
      expect(totalCruised).toBeGreaterThan(100);
      const app = output.modules.find((module) => module.source === 'src/app.ts');
      expect(app?.dependencies.map((dependency) => dependency.resolved)).toContain('src/http/auth.ts');
      expect(violations.map(describeViolation)).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });
});

function describeViolation(violation: IViolation): string {
  const circle = violation.cycle?.map((step) => step.name).join(' -> ');
  return `${violation.rule.name}: ${violation.from} -> ${violation.to}${circle ? ` (circle: ${violation.from} -> ${circle})` : ''}`;
}
