import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Module boundaries (docs/architecture.md, "Module map"): a module touches only its own tables; other modules go
 * through what it exports. This walks the import graph of src/modules and lists every import that crosses a boundary:
 * another module's entity files (its tables), and the dependencies the module map forbids.
 */

const SRC = resolve(__dirname, '../../src');
const MODULES = join(SRC, 'modules');

/** Every module (by folder) that must not import another one at all: the direction of the dependency is the rule. */
const FORBIDDEN: Array<{ from: string; to: string; why: string }> = [
  { from: 'courses', to: 'registrations', why: 'courses ask the player for launch links (player/launch-links), never registrations' },
  { from: 'courses', to: 'player', why: 'the player depends on courses; courses use only its launch link service' },
  { from: 'registrations', to: 'player', why: 'the player depends on registrations; registrations use only its launch link service' },
  { from: 'xapi', to: 'player', why: 'the LRS knows no writer: the player maps its runtime to statements and hands them to the LRS' },
  { from: 'xapi', to: 'registrations', why: 'the LRS knows no writer' },
  { from: 'xapi', to: 'courses', why: 'the LRS knows no writer' },
  { from: 'sequencing', to: 'player', why: 'the sequencing engine is pure' },
  { from: 'sequencing', to: 'registrations', why: 'the sequencing engine is pure' },
];

/** What a module may import of another that the FORBIDDEN list would otherwise refuse: only the launch link service. */
const LAUNCH_LINKS = /^player\/(launch-links|launch-links\.module|dto\/launch-link-request\.dto)$/;
const ALLOWED: Array<{ from: string; target: RegExp }> = [
  { from: 'courses', target: LAUNCH_LINKS },
  { from: 'registrations', target: LAUNCH_LINKS },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** The module-relative targets (`registrations/entities/registration.entity`) of a file's relative imports and re-exports. */
function importsOf(file: string, root = MODULES): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*['"](\.[^'"]+)['"]/g), ...text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((m) => m[1]);
  return specifiers.map((s) => relative(root, resolve(dirname(file), s))).filter((t) => !t.startsWith('..'));
}

const moduleOf = (modulePath: string): string => modulePath.split('/')[0];
const isEntityFile = (modulePath: string): boolean => /(^|\/)entities\//.test(modulePath) || modulePath.endsWith('.entity');

interface Crossing {
  file: string;
  target: string;
  why: string;
}

function crossings(root = MODULES): Crossing[] {
  const found: Crossing[] = [];
  for (const file of sourceFiles(root)) {
    const from = moduleOf(relative(root, file));
    for (const target of importsOf(file, root)) {
      const to = moduleOf(target);
      if (to === from) continue;
      const name = relative(dirname(root), file);
      if (isEntityFile(target)) found.push({ file: name, target, why: `${to}'s entity files are its tables: use what ${to} exports` });
      const rule = FORBIDDEN.find((r) => r.from === from && r.to === to);
      if (rule && !ALLOWED.some((a) => a.from === from && a.target.test(target))) found.push({ file: name, target, why: rule.why });
    }
  }
  return found;
}

describe('module boundaries', () => {
  it('finds an import of another module entity file, and a forbidden dependency', () => {
    const root = join(mkdtempSync(join(tmpdir(), 'lcds-boundaries-')), 'modules');
    try {
      for (const dir of ['player', 'registrations/entities', 'xapi']) mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, 'registrations/entities/registration.entity.ts'), 'export class RegistrationEntity {}\n');
      writeFileSync(join(root, 'registrations/registration-progress.ts'), "import { RegistrationEntity } from './entities/registration.entity';\nexport class RegistrationProgress {}\n");
      writeFileSync(join(root, 'player/player.ts'), "import type { RegistrationEntity } from '../registrations/entities/registration.entity';\nimport { RegistrationProgress } from '../registrations/registration-progress';\n");
      writeFileSync(join(root, 'xapi/store.ts'), "export { x } from '../player/player';\n");
      expect(crossings(root).map((c) => `${c.file} -> ${c.target}`)).toEqual(['modules/player/player.ts -> registrations/entities/registration.entity', 'modules/xapi/store.ts -> player/player']);
    } finally {
      rmSync(dirname(root), { recursive: true, force: true });
    }
  });

  it('no module imports another module entity files or a dependency the module map forbids', () => {
    const found = crossings();
    const listing = found.map((c) => `  ${c.file} -> ${c.target}  (${c.why})`).join('\n');
    // The message lists every crossing found, so a failure says what to change.
    expect(`${found.length} boundary crossing(s)\n${listing}`).toBe('0 boundary crossing(s)\n');
  });
});
