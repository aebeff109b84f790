import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { randomBytes } from 'node:crypto';
import { PublicEndpoint } from '../../platform/auth/authorize.decorator';
import { DomainError } from '../../platform/http/domain-errors';
import { DispatchLaunches, LaunchRefusal } from './dispatch-launches';
import { DispatchLti } from './dispatch-lti';
import { DispatchLti13 } from './dispatch-lti13';
import { DispatchAicc } from './dispatch-aicc';
import { DispatchXapi } from './dispatch-xapi';
import { xapiRelayPage } from './dispatch-xapi-page';
import { aiccRelayPage, bridgePage, EXIT_SCRIPT, EXIT_TEXT, messagePage, REFUSALS } from './dispatch-pages';

/**
 * The learner-facing side of dispatch packages, under PUBLIC_URL/dispatch/: the launch (framed by the client LMS's
 * copy of the package), the relay's progress polls, the player's exit page and the clock the package's tokens use.
 */
@ApiExcludeController()
@Controller('dispatch')
export class DispatchPagesController {
  constructor(
    private readonly launches: DispatchLaunches,
    private readonly lti: DispatchLti,
    private readonly lti13: DispatchLti13,
    private readonly xapi: DispatchXapi,
    private readonly aicc: DispatchAicc,
  ) {}

  @Get('clock')
  @PublicEndpoint()
  clock(@Res({ passthrough: true }) res: Response) {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Access-Control-Allow-Origin', '*');
    return { now: Math.floor(Date.now() / 1000) };
  }

  @Get('launch')
  @PublicEndpoint()
  async launch(@Query('token') token: unknown, @Res() res: Response) {
    const nonce = randomBytes(16).toString('base64');
    const result = typeof token === 'string' ? await this.plainly(res, () => this.launches.fromPackage(token)) : { refused: 'invalid' as const };
    if (!result) return;
    if ('refused' in result) {
      const r = REFUSALS[result.refused];
      return this.send(res, r.status, messagePage(r.text), nonce);
    }
    const page = bridgePage(nonce, { playerUrl: result.playerUrl, status: `/dispatch/status/${result.statusToken}`, target: result.lmsOrigin, every: result.pollMs });
    this.send(res, 200, page, nonce);
  }

  /** A cmi5 AU's launch (the client LMS opens it with its launch parameters): the player and the relay to its LRS. */
  @Get('cmi5/:key/:sig')
  @PublicEndpoint()
  async cmi5Launch(@Param('key') key: string, @Param('sig') sig: string, @Query() query: Record<string, unknown>, @Res() res: Response) {
    await this.xapiLaunch('cmi5', key, sig, query, res);
  }

  /** An xAPI (Tin Can) package's launch, sent on by the package's page with the LMS's launch parameters. */
  @Get('xapi/:key/:sig')
  @PublicEndpoint()
  async xapiPackageLaunch(@Param('key') key: string, @Param('sig') sig: string, @Query() query: Record<string, unknown>, @Res() res: Response) {
    await this.xapiLaunch('xapi', key, sig, query, res);
  }

  private async xapiLaunch(kind: 'cmi5' | 'xapi', key: string, sig: string, query: Record<string, unknown>, res: Response): Promise<void> {
    const nonce = randomBytes(16).toString('base64');
    const result = await this.plainly(res, () => this.xapi.launch(kind, key, sig, query));
    if (!result) return;
    if ('refused' in result) {
      const r = REFUSALS[result.refused];
      return this.send(res, r.status, messagePage(r.text), nonce);
    }
    // The page talks to the LMS's LRS (and its fetch URL) itself: those origins, and LCDS's, only.
    const lrsOrigins = [...new Set([result.endpoint, result.fetchUrl].filter((u): u is string => !!u).map((u) => new URL(u).origin))];
    this.send(res, 200, xapiRelayPage(nonce, result), nonce, lrsOrigins);
  }

  /** An AICC AU's launch (aicc_sid, aicc_url): the learner from HACP GetParam, the player, the relay. */
  @Get('aicc/:key/:sig')
  @PublicEndpoint()
  async aiccLaunch(@Param('key') key: string, @Param('sig') sig: string, @Query() query: Record<string, unknown>, @Res() res: Response) {
    const nonce = randomBytes(16).toString('base64');
    const result = await this.plainly(res, () => this.aicc.launch(key, sig, query));
    if (!result) return;
    if ('refused' in result) {
      const r = REFUSALS[result.refused];
      return this.send(res, r.status, messagePage(r.text), nonce);
    }
    this.send(res, 200, aiccRelayPage(nonce, result), nonce);
  }

  /** The AICC page's call: send the launch's progress to the LMS (HACP), and end the session when `exit`. */
  @Post('aicc-relay/:token')
  @PublicEndpoint()
  async aiccRelay(@Param('token') token: string, @Query('exit') exit: unknown, @Res() res: Response) {
    res.setHeader('Cache-Control', 'no-store');
    const sent = await this.aicc.relay(token, exit === '1').catch(() => null);
    if (sent === false) return res.status(404).json({ message: 'This launch is not known (or no longer)' });
    if (sent === null) return res.status(502).json({ message: 'The learning system did not take the progress (HACP)' });
    res.status(204).end();
  }

  /** LTI 1.1 basic launch (the consumer's auto-submitted form): on to the player, or a plain page saying why not. */
  @Post('lti/:key')
  @HttpCode(200)
  @PublicEndpoint()
  async ltiLaunch(@Param('key') key: string, @Body() body: unknown, @Res() res: Response) {
    const form = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const result = await this.plainly(res, () => this.lti.launch(key, form));
    if (result) this.redirectOrRefuse(res, result);
  }

  @Get('lti13/jwks')
  @PublicEndpoint()
  async lti13Jwks(@Res({ passthrough: true }) res: Response) {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('Access-Control-Allow-Origin', '*');
    return this.lti13.jwks();
  }

  /** OIDC third-party login initiation (GET or POST, as the platform chooses). */
  @Get('lti13/login')
  @PublicEndpoint()
  async lti13LoginGet(@Query() query: Record<string, unknown>, @Res() res: Response) {
    await this.lti13Login(query, res);
  }

  @Post('lti13/login')
  @HttpCode(200)
  @PublicEndpoint()
  async lti13LoginPost(@Body() body: unknown, @Res() res: Response) {
    await this.lti13Login(typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}, res);
  }

  @Post('lti13/launch')
  @HttpCode(200)
  @PublicEndpoint()
  async lti13Launch(@Body() body: unknown, @Res() res: Response) {
    const form = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const result = typeof form.id_token === 'string' && typeof form.state === 'string' ? await this.plainly(res, () => this.lti13.launch(form.id_token as string, form.state as string)) : { refused: 'invalid' as const };
    if (result) this.redirectOrRefuse(res, result);
  }

  private async lti13Login(params: Record<string, unknown>, res: Response): Promise<void> {
    const strings = Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const result = await this.lti13.login(strings);
    if ('refused' in result) return this.redirectOrRefuse(res, result);
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, result.redirect);
  }

  /**
   * A learner's page: what the service refuses on the way (the application's registration limit, …) is a plain page
   * with its message, not a JSON body; null when that page was sent.
   */
  private async plainly<T>(res: Response, run: () => Promise<T>): Promise<T | null> {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      this.send(res, err.status, messagePage(err.message), randomBytes(16).toString('base64'));
      return null;
    }
  }

  private redirectOrRefuse(res: Response, result: { playerUrl: string } | { refused: LaunchRefusal }): void {
    if ('refused' in result) {
      const r = REFUSALS[result.refused];
      return this.send(res, r.status, messagePage(r.text), randomBytes(16).toString('base64'));
    }
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, result.playerUrl);
  }

  @Get('status/:token')
  @PublicEndpoint()
  async status(@Param('token') token: string, @Res() res: Response) {
    res.setHeader('Cache-Control', 'no-store');
    const progress = await this.launches.status(token).catch(() => null);
    if (!progress) return res.status(404).json({ message: 'This launch is not known (or no longer)' });
    res.json(progress);
  }

  @Get('exit')
  @PublicEndpoint()
  exit(@Res() res: Response) {
    const nonce = randomBytes(16).toString('base64');
    this.send(res, 200, messagePage(EXIT_TEXT, nonce, EXIT_SCRIPT), nonce);
  }

  /**
   * Any page may frame these: a client LMS often serves its content (the package's page) from another origin than
   * its own pages, and frame-ancestors would have to name both. The relay posts to the token's origin alone.
   */
  private send(res: Response, status: number, body: string, nonce: string, connect: string[] = []): void {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader(
      'Content-Security-Policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src 'self'${connect.map((o) => ` ${o}`).join('')}; frame-src 'self'; frame-ancestors *; base-uri 'none'`,
    );
    res.status(status).type('html').send(body);
  }
}
