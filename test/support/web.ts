import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

const ROOT = join(__dirname, '..', '..');

/** The web pages come from `vite build` (part of npm run build); a bare `npx jest …` builds them when they are missing. */
export function ensureWebBuilt(): void {
  if (existsSync(join(ROOT, 'dist', 'web', 'reports', 'index.html')) && existsSync(join(ROOT, 'dist', 'web', 'console', 'index.html'))) return;
  const build = spawnSync('npx', ['vite', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], { cwd: ROOT, encoding: 'utf8', timeout: 170_000 });
  if (build.status !== 0) throw new Error(`vite build failed (exit ${build.status}):\n${build.stdout}\n${build.stderr}`);
}

/** Screenshots for a person to look at: in LCDS_TEST_SCREENSHOTS_DIR, or the system's temporary directory. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.LCDS_TEST_SCREENSHOTS_DIR ?? join(tmpdir(), 'lcds-screenshots');
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

/** The text of a table's body rows, cell by cell. */
export function tableRows(page: Page, caption: string): Promise<string[][]> {
  return page.evaluate((cap) => {
    const table = Array.from(document.querySelectorAll('table')).find((t) => t.caption?.textContent?.trim() === cap);
    if (!table) return [];
    return Array.from(table.tBodies[0].rows).map((r) => Array.from(r.cells).map((c) => (c.textContent ?? '').trim()));
  }, caption);
}
