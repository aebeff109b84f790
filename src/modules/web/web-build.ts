import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The web pages' apps: each has dist/web/<app>/index.html and lives at PUBLIC_URL/<app>/. */
export const WEB_APPS = ['reports', 'console'] as const;
export type WebApp = (typeof WEB_APPS)[number];

/**
 * Where `vite build` (npm run build) put the pages: dist/web next to the compiled server (dist/modules/web → dist/web),
 * or, when the server runs from its sources (tests), the checkout's dist/web.
 */
export function webBuildDir(): string | null {
  for (const dir of [join(__dirname, '..', '..', 'web'), join(__dirname, '..', '..', '..', 'dist', 'web')]) {
    if (existsSync(join(dir, 'reports', 'index.html'))) return dir;
  }
  return null;
}

/** An app's index.html with a <base href> of PUBLIC_URL/<app>/, so its relative asset URLs and routes work under any prefix. */
export function appHtml(dir: string, app: WebApp, basePath: string): string {
  const html = readFileSync(join(dir, app, 'index.html'), 'utf8');
  const href = `${basePath}/${app}/`.replace(/"/g, '&quot;');
  return html.replace('<head>', `<head>\n    <base href="${href}" />`);
}
