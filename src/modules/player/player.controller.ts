import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { createReadStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PublicEndpoint } from '../../platform/auth/authorize.decorator';
import { ContentStore, contentTypeFor, RangeNotSatisfiableError, segmentProblem } from '../../platform/storage/content-store';
import { messagePage, PlayerError } from './player-errors';
import { MEDIA_PAGE_POLICY, MEDIA_SCRIPT, mediaViewerPage, PDFJS_ASSETS } from './player-media';
import { contentUrlOf, PLAYER_SCRIPT, playerPage, playerPagePolicy } from './player-page';
import { pageHeaders, scriptNonce } from '../../platform/http/security-headers';
import { PlayerService } from './player.service';
import { PlayerCommitService } from './player-commit.service';
import { PlayerLaunchService } from './player-launch.service';
import { PlayerLaunchAuth } from './player-launch-auth';
import { PlayerNavigationService } from './player-navigation.service';
import { returnPage } from './player-return-page';
import { Cmi5Runtime } from './cmi5-runtime';

const CONTENT_MAX_AGE = 300;
const SCORM_AGAIN = join(dirname(require.resolve('scorm-again')), 'scorm-again.min.js');

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` (one range); null = ignore the header; 'invalid' = 416. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'invalid' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'invalid';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'invalid';
  return { start, end };
}

/**
 * The learner-facing player, outside /api/v2: launch links, the player page, course content of a session, and the
 * commit endpoint. Learners authenticate by the signed tokens in the URLs, not by API credentials.
 */
@ApiExcludeController()
@Controller('player')
export class PlayerController {
  constructor(
    private readonly player: PlayerService,
    private readonly launcher: PlayerLaunchService,
    private readonly launchAuth: PlayerLaunchAuth,
    private readonly navigation: PlayerNavigationService,
    private readonly commits: PlayerCommitService,
    private readonly cmi5: Cmi5Runtime,
    private readonly store: ContentStore,
  ) {}

  @Get('launch/:token')
  @PublicEndpoint()
  async launch(@Param('token') token: string, @Req() req: Request, @Res() res: Response) {
    await this.page(res, async () => {
      const { token: session, launchAuth } = await this.launcher.launch(token);
      // launchAuth: the session is bound to this browser (a cookie), address or fingerprint from here on.
      const cookie = launchAuth?.policy ? await this.launchAuth.bind(session, req) : null;
      if (cookie) res.append('Set-Cookie', cookie);
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(303, `/player/s/${session}/`);
    });
  }

  // Express matches with and without the trailing slash; the page's relative URLs need the slash.
  @Get('s/:token/')
  @PublicEndpoint()
  async playerPage(@Param('token') token: string, @Req() req: Request, @Res() res: Response) {
    if (!req.path.endsWith('/')) {
      res.redirect(301, `/player/s/${token}/`);
      return;
    }
    await this.page(res, async () => {
      const model = await this.player.pageModel(token);
      res.setHeader('Cache-Control', 'no-store');
      pageHeaders(res, playerPagePolicy(model), 'any');
      res.type('html').send(playerPage(model));
    });
  }

  // POST s/:token/commit is served outside Express and Nest (CommitEndpoint, handed the request by the HTTP server).

  /** cmi5's fetch URL (cmi5 8.2): the AU's auth token once, the spec's error JSON after. */
  @Post('cmi5/fetch/:token')
  @HttpCode(200)
  @PublicEndpoint()
  async cmi5Fetch(@Param('token') token: string, @Res() res: Response) {
    res.setHeader('Cache-Control', 'no-store');
    // An AU hosted elsewhere (an absolute AU url) POSTs here from its own origin: a simple CORS request, no credentials.
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.json(await this.cmi5.fetch(token));
  }

  /**
   * cmi5's returnURL: where an AU sends the learner when it is done. A top-level navigation (an OwnWindow AU that
   * replaced the player page) goes on to the link's redirectOnExitUrl (or a page saying the course ended); an AU the
   * player framed (or opened) gets a page that hands the learner back to the player, whose table of contents stays.
   */
  @Get('s/:token/return')
  @PublicEndpoint()
  async cmi5Return(@Param('token') token: string, @Req() req: Request, @Res() res: Response) {
    await this.page(res, async () => {
      const target = await this.player.exitTarget(token);
      res.setHeader('Cache-Control', 'no-store');
      if (req.headers['sec-fetch-dest'] !== 'document') {
        const nonce = scriptNonce();
        pageHeaders(res, { 'default-src': ["'none'"], 'script-src': [`'nonce-${nonce}'`], 'style-src': ["'unsafe-inline'"], 'base-uri': ["'none'"] }, 'any');
        res.type('html').send(returnPage(target, nonce));
      }
      else if (target) res.redirect(303, target);
      else res.type('html').send(messagePage('You have left the course', 'The course has ended. You may close this window.'));
    });
  }

  /** Switches the session to another activity of the course; returns what the player starts it with. */
  @Post('s/:token/activity')
  @HttpCode(200)
  @PublicEndpoint()
  async switchActivity(@Param('token') token: string, @Body() body: { activityId?: unknown } | undefined, @Res() res: Response) {
    try {
      const launch = await this.navigation.switchActivity(token, body?.activityId);
      res.setHeader('Cache-Control', 'no-store');
      res.json({ ...launch, contentUrl: contentUrlOf(launch.contentHref) });
    } catch (err) {
      if (err instanceof PlayerError) res.status(err.status).json({ result: false, message: err.message, ...(err.reason ? { reason: err.reason } : {}) });
      else throw err;
    }
  }

  /**
   * A navigation request of a SCORM 2004 course (Continue, Previous, Exit, Suspend, a table-of-contents choice, a
   * SCO's adl.nav.request): the server's sequencing engine answers with the activity to run next, or the end.
   */
  @Post('s/:token/nav')
  @HttpCode(200)
  @PublicEndpoint()
  async navigate(@Param('token') token: string, @Body() body: { request?: unknown; target?: unknown } | undefined, @Res() res: Response) {
    try {
      const outcome = await this.navigation.navigate(token, body);
      res.setHeader('Cache-Control', 'no-store');
      res.json({ ...outcome, ...(outcome.launch ? { launch: { ...outcome.launch, contentUrl: contentUrlOf(outcome.launch.contentHref) } } : {}) });
    } catch (err) {
      if (err instanceof PlayerError) res.status(err.status).json({ result: false, message: err.message, ...(err.reason ? { reason: err.reason } : {}) });
      else throw err;
    }
  }

  /**
   * The player page is going away (its unload beacon): the launch of an xAPI course ends (its exit time, and the time
   * since the launch is the launch's and the registration's); a cmi5 launch that sent no terminated gets its exit time.
   */
  @Post('s/:token/exit')
  @HttpCode(204)
  @PublicEndpoint()
  async leave(@Param('token') token: string, @Res() res: Response) {
    try {
      await this.player.leave(token);
      res.status(204).end();
    } catch (err) {
      if (err instanceof PlayerError) res.status(err.status).json({ result: false, message: err.message });
      else throw err;
    }
  }

  /** The SCO's runtime calls the page recorded, for the launch's history log (launches that capture the runtime). */
  @Post('s/:token/log')
  @HttpCode(204)
  @PublicEndpoint()
  async runtimeLog(@Param('token') token: string, @Body() body: { lines?: unknown } | undefined, @Res() res: Response) {
    try {
      await this.player.appendRuntimeLog(token, body);
      res.setHeader('Cache-Control', 'no-store');
      res.status(204).end();
    } catch (err) {
      if (err instanceof PlayerError) res.status(err.status).json({ result: false, message: err.message });
      else throw err;
    }
  }

  /** The viewer of a media course, where the SCO of another course would run. */
  @Get('s/:token/media')
  @PublicEndpoint()
  async mediaViewer(@Param('token') token: string, @Res() res: Response) {
    await this.page(res, async () => {
      const media = await this.player.mediaOf(token);
      const nonce = scriptNonce();
      res.setHeader('Cache-Control', 'no-store');
      pageHeaders(res, MEDIA_PAGE_POLICY(nonce), 'self');
      res.type('html').send(mediaViewerPage(media, nonce));
    });
  }

  @Get('s/:token/content/*path')
  @PublicEndpoint()
  async content(@Param('token') token: string, @Req() req: Request, @Res() res: Response) {
    const marker = `/s/${token}/content/`;
    const at = req.path.indexOf(marker);
    const raw = at >= 0 ? req.path.slice(at + marker.length) : '';
    let segments: string[];
    try {
      segments = raw.split('/').map((s) => decodeURIComponent(s));
    } catch {
      segments = [''];
    }
    if (segments.some((s) => s.includes('/') || segmentProblem(s) !== null)) {
      res.status(400).type('text/plain').send('Invalid content path');
      return;
    }
    let prefix: string;
    try {
      prefix = await this.player.contentPrefix(token);
    } catch (err) {
      if (err instanceof PlayerError) {
        res.status(err.status).type('text/plain').send(err.message);
        return;
      }
      throw err;
    }
    const key = prefix + segments.join('/');
    const stat = await this.store.stat(key);
    if (!stat) {
      res.status(404).type('text/plain').send('Not found');
      return;
    }
    const type = contentTypeFor(key);
    res.setHeader('Content-Type', /^(text\/|application\/(javascript|json|xml))/.test(type) && !type.includes('charset') ? `${type}; charset=utf-8` : type);
    res.setHeader('ETag', stat.etag);
    res.setHeader('Last-Modified', stat.lastModified.toUTCString());
    res.setHeader('Cache-Control', `private, max-age=${CONTENT_MAX_AGE}`);
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.headers['if-none-match'] === stat.etag) {
      res.status(304).end();
      return;
    }
    const ifRange = req.headers['if-range'];
    const range = ifRange && ifRange !== stat.etag ? null : parseRange(req.headers.range, stat.size);
    if (range === 'invalid') {
      res.setHeader('Content-Range', `bytes */${stat.size}`);
      res.status(416).end();
      return;
    }
    let object;
    try {
      object = await this.store.get(key, range ?? undefined);
    } catch (err) {
      if (err instanceof RangeNotSatisfiableError) {
        res.setHeader('Content-Range', `bytes */${stat.size}`);
        res.status(416).end();
        return;
      }
      throw err;
    }
    if (!object) {
      res.status(404).type('text/plain').send('Not found');
      return;
    }
    if (range) {
      res.status(206);
      res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${stat.size}`);
    }
    res.setHeader('Content-Length', String(object.contentLength));
    if (req.method === 'HEAD') {
      object.stream.destroy();
      res.end();
      return;
    }
    await pipeline(object.stream, res).catch(() => undefined);
  }

  @Get('assets/scorm-again.min.js')
  @PublicEndpoint()
  scormAgain(@Res() res: Response) {
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', 'public, max-age=3600');
    createReadStream(SCORM_AGAIN).pipe(res);
  }

  @Get('assets/media.js')
  @PublicEndpoint()
  mediaScript(@Res() res: Response) {
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.send(MEDIA_SCRIPT);
  }

  @Get('assets/player.js')
  @PublicEndpoint()
  playerScript(@Res() res: Response) {
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.send(PLAYER_SCRIPT);
  }

  /** pdf.js (pdfjs-dist), which the PDF viewer of media courses runs. */
  @Get('assets/:file')
  @PublicEndpoint()
  pdfjs(@Param('file') file: string, @Res() res: Response) {
    const path = Object.prototype.hasOwnProperty.call(PDFJS_ASSETS, file) ? PDFJS_ASSETS[file as keyof typeof PDFJS_ASSETS] : null;
    if (!path) {
      res.status(404).type('text/plain').send('Not found');
      return;
    }
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', 'public, max-age=3600');
    createReadStream(require.resolve(path)).pipe(res);
  }

  /** Runs a page handler; a PlayerError becomes a small HTML page with its status, never a stack trace. */
  private async page(res: Response, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (err) {
      if (!(err instanceof PlayerError)) throw err;
      res.setHeader('Cache-Control', 'no-store');
      res.status(err.status).type('html').send(messagePage(err.title, err.message));
    }
  }
}
