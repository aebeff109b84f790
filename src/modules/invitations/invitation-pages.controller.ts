import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { PublicEndpoint } from '../../platform/auth/authorize.decorator';
import { LaunchLinks } from '../player/launch-links';
import { RegistrationRestarts } from '../registrations/registration-restarts';
import { RegistrationsService } from '../registrations/registrations.service';
import { InvitationEntity } from './entities/invitation.entity';
import { emailProblem } from './invitation-rules';
import { FormState, InvitationStrings, joinPage, noticePage, stringsFor } from './invitation-page';
import { InvitationsService } from './invitations.service';

const SECURITY_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

/**
 * The learner-facing invitation pages, served by LCDS under PUBLIC_URL: `/invite/p/<token>` (a public invitation: a
 * form, then the launch) and `/invite/u/<token>` (a user invitation's own link: straight to the launch). Plain
 * server-rendered HTML with no script; words follow the browser's Accept-Language where translated (en, fr, de).
 */
@ApiExcludeController()
@Controller('invite')
export class InvitationPagesController {
  constructor(
    private readonly invitations: InvitationsService,
    private readonly registrations: RegistrationsService,
    private readonly launchLinks: LaunchLinks,
    private readonly restarts: RegistrationRestarts,
  ) {}

  @Get('p/:token')
  @PublicEndpoint()
  async publicPage(@Param('token') token: string, @Req() req: Request, @Res() res: Response) {
    const s = stringsFor(req.headers['accept-language']);
    const inv = await this.invitations.byPublicToken(token);
    if (!inv) return this.send(res, 404, noticePage(s, s.notFoundTitle, s.notFound));
    if (this.refusedAsClosed(res, s, inv)) return;
    const title = await this.invitations.courseTitle(inv);
    this.send(res, 200, joinPage(s, title, `/invite/p/${token}`, { firstName: '', lastName: '', email: '', errors: {} }));
  }

  @Post('p/:token')
  @HttpCode(200)
  @PublicEndpoint()
  async join(@Param('token') token: string, @Body() body: Record<string, unknown>, @Req() req: Request, @Res() res: Response) {
    const s = stringsFor(req.headers['accept-language']);
    const inv = await this.invitations.byPublicToken(token);
    if (!inv) return this.send(res, 404, noticePage(s, s.notFoundTitle, s.notFound));
    if (this.refusedAsClosed(res, s, inv)) return;
    const text = (v: unknown) => (typeof v === 'string' ? v.trim().slice(0, 255) : '');
    const state: FormState = { firstName: text(body?.firstName), lastName: text(body?.lastName), email: text(body?.email), errors: {} };
    if (!state.firstName) state.errors.firstName = s.required;
    if (!state.lastName) state.errors.lastName = s.required;
    if (!state.email) state.errors.email = s.required;
    else if (emailProblem(state.email)) state.errors.email = s.invalidEmail;
    if (Object.keys(state.errors).length > 0) {
      return this.send(res, 400, joinPage(s, await this.invitations.courseTitle(inv), `/invite/p/${token}`, state));
    }
    const joined = await this.invitations.joinPublic(inv, state);
    if ('refused' in joined) return this.send(res, 403, noticePage(s, s.closedTitle, joined.refused === 'full' ? s.full : s.noNew));
    await this.launch(res, inv, joined.registrationId, s);
  }

  @Get('u/:token')
  @PublicEndpoint()
  async userLink(@Param('token') token: string, @Req() req: Request, @Res() res: Response) {
    const s = stringsFor(req.headers['accept-language']);
    const found = await this.invitations.byUserToken(token);
    if (!found || !found.user.registrationId) return this.send(res, 404, noticePage(s, s.notFoundTitle, s.notFound));
    if (this.refusedAsClosed(res, s, found.inv)) return;
    await this.launch(res, found.inv, found.user.registrationId, s);
  }

  private refusedAsClosed(res: Response, s: InvitationStrings, inv: InvitationEntity): boolean {
    const state = this.invitations.openness(inv);
    if (state === 'open') return false;
    this.send(res, 403, noticePage(s, s.closedTitle, state === 'closed' ? s.closed : s.expired));
    return true;
  }

  private async launch(res: Response, inv: InvitationEntity, registrationId: string, s: InvitationStrings): Promise<void> {
    const reg = await this.registrations.find(inv.appId, registrationId);
    if (!reg) return this.send(res, 404, noticePage(s, s.notFoundTitle, s.notFound));
    // As a registration's launch link: WhenToRestartRegistration may start a new instance (or move it to the latest version).
    const inst = await this.restarts.instanceToLaunch(inv.appId, reg, await this.registrations.requireInstance(inv.appId, reg));
    const link = await this.launchLinks.issue({
      appId: inv.appId,
      target: { kind: 'registration', registrationId, instance: inst.instance },
      tracking: true,
      expirySeconds: 120,
      redirectOnExitUrl: '',
      ...(s.lang !== 'en' ? { culture: s.lang } : {}),
    });
    res.set(SECURITY_HEADERS);
    res.redirect(303, link);
  }

  private send(res: Response, status: number, html: string): void {
    res.status(status).set(SECURITY_HEADERS).type('html').send(html);
  }
}
