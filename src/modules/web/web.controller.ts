import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { PublicEndpoint } from '../../platform/auth/authorize.decorator';
import { appHtml, WebApp, webBuildDir } from './web-build';
import { pageHeaders } from '../../platform/http/security-headers';

const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.woff2': 'font/woff2' };

/**
 * The web pages: the report viewer (PUBLIC_URL/reports/…) and the console (PUBLIC_URL/console/…), each a single
 * page whose routes all answer its index.html; their hashed assets under /web-assets/; GET / leads to the console.
 */
@ApiExcludeController()
@Controller()
export class WebController {
  private readonly basePath: string;
  private readonly html = new Map<WebApp, string>();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.basePath = new URL(config.publicUrl).pathname.replace(/\/$/, '');
  }

  @Get()
  @PublicEndpoint()
  root(@Res() res: Response) {
    res.redirect(302, `${this.basePath}/console/`);
  }

  @Get(['reports', 'reports/*path'])
  @PublicEndpoint()
  reports(@Res() res: Response) {
    this.page(res, 'reports');
  }

  @Get(['console', 'console/*path'])
  @PublicEndpoint()
  console(@Res() res: Response) {
    this.page(res, 'console');
  }

  @Get('web-assets/:file')
  @PublicEndpoint()
  asset(@Param('file') file: string, @Res() res: Response) {
    const dir = webBuildDir();
    const type = ASSET_TYPES[/\.[a-z0-9]+$/.exec(file)?.[0] ?? ''];
    const path = dir && /^[\w.-]+$/.test(file) && type ? join(dir, 'web-assets', file) : null;
    if (!path || !existsSync(path)) {
      res.status(404).type('text/plain').send('Not found');
      return;
    }
    res.setHeader('Content-Type', type);
    // Vite names assets by their content's hash.
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    createReadStream(path).pipe(res);
  }

  private page(res: Response, app: WebApp): void {
    const dir = webBuildDir();
    if (!dir) {
      res.status(503).type('text/plain').send('The web pages are not built: run npm run build.');
      return;
    }
    let html = this.html.get(app);
    if (!html) this.html.set(app, (html = appHtml(dir, app, this.basePath)));
    res.setHeader('Cache-Control', 'no-cache');
    // The console may not be framed by any page (clickjacking an operator); the report viewer by LCDS's own pages.
    pageHeaders(
      res,
      { 'default-src': ["'self'"], 'script-src': ["'self'"], 'style-src': ["'self'"], 'img-src': ["'self'", 'data:'], 'connect-src': ["'self'"], 'object-src': ["'none'"], 'base-uri': ["'self'"] },
      app === 'console' ? 'none' : 'self',
    );
    res.type('html').send(html);
  }
}
