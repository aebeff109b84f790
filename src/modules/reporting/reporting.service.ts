import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { Scope } from '../../platform/auth/scopes';
import { TokenService } from '../../platform/auth/token.service';
import { KeyRing } from '../../platform/crypto/keyring';
import { InvalidInputError } from '../../platform/http/domain-errors';
import { ApplicationsService } from '../applications/applications.service';
import { CoursesService } from '../courses/courses.service';
import { monthStart, RegistrationsService } from '../registrations/registrations.service';
import { NAV_PERMISSIONS, NavPermission, parseViewerPath, viewerPath } from './viewer-pages';

/** ReportageAccountInfoSchema */
export interface AccountInfoView {
  email?: string;
  company?: string;
  accountType: string;
  regLimit?: number;
  strictLimit: boolean;
  createDate: string;
  usage: { monthStart: string; regCount: number; totalRegistrations: number; totalCourses: number };
}

/** How long the query string of GetReportageAuthToken may be turned into links. */
export const VIEWER_GRANT_SECONDS = 10 * 60;
/** How long a link of GetReportageLink opens its page (and the viewer's data requests made from it answer). */
export const VIEWER_LINK_SECONDS = 60 * 60;

interface GrantPayload {
  a: string;
  n: NavPermission;
  adm: boolean;
  e: number;
}

/**
 * The Reporting service: an application's account figures, and the two steps that open the report viewer. A
 * grant (GetReportageAuthToken) is a short-lived signed query string; a link (GetReportageLink) carries, in its
 * fragment, a bearer token limited to the reporting scope and to what the grant's navPermission lets it show.
 */
@Injectable()
export class ReportingService {
  constructor(
    private readonly applications: ApplicationsService,
    private readonly courses: CoursesService,
    private readonly registrations: RegistrationsService,
    private readonly keys: KeyRing,
    private readonly tokens: TokenService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async accountInfo(appId: string, now = new Date()): Promise<AccountInfoView> {
    const account = await this.applications.account(appId);
    const start = monthStart(now);
    const [regCount, totalRegistrations, totalCourses] = await Promise.all([
      this.registrations.countCreatedSince(appId, start),
      this.registrations.countByApp([appId]).then((m) => m.get(appId) ?? 0),
      this.courses.countByApp([appId]).then((m) => m.get(appId) ?? 0),
    ]);
    return {
      ...(account.contactEmail ? { email: account.contactEmail } : {}),
      ...(account.contactCompany ? { company: account.contactCompany } : {}),
      accountType: account.isManagement ? 'management' : 'application',
      ...(account.regLimit !== null ? { regLimit: account.regLimit } : {}),
      strictLimit: account.regLimit !== null && account.strictLimit,
      createDate: account.createdAt.toISOString(),
      usage: { monthStart: start.toISOString(), regCount, totalRegistrations, totalCourses },
    };
  }

  /** ReportageAuthTokenSchema: `queryString` is `auth=<grant>`, to be handed to GetReportageLink. */
  authToken(appId: string, navPermission: NavPermission, admin: boolean): { queryString: string; authEnabled: boolean } {
    const payload: GrantPayload = { a: appId, n: navPermission, adm: admin, e: Math.floor(Date.now() / 1000) + VIEWER_GRANT_SECONDS };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return { queryString: `auth=${body}.${this.keys.sign('reports', body)}`, authEnabled: true };
  }

  /** ReportageLinkSchema: a link that opens `reportUrl` with what the grant `auth` allows. */
  link(appId: string, auth: string, reportUrl: string): { reportageLink: string } {
    const grant = this.readGrant(appId, auth);
    const target = this.viewerUrl(reportUrl);
    const page = parseViewerPath(target.path);
    if (!page) throw new InvalidInputError(`reportUrl must be a page of the report viewer: ${this.config.publicUrl}/reports/ or …/reports/courses/{courseId}, …/reports/learners/{learnerId}, …/reports/registrations/{registrationId}`);
    const { token } = this.tokens.issue({
      appId,
      scopes: [Scope.ReadReporting],
      isManagement: false,
      expiresAt: new Date(Date.now() + VIEWER_LINK_SECONDS * 1000),
      label: 'report viewer',
      viewer: { nav: grant.n, root: viewerPath(page), admin: grant.adm },
    });
    return { reportageLink: `${this.config.publicUrl}${viewerPath(page)}${target.search}#token=${encodeURIComponent(token)}` };
  }

  private readGrant(appId: string, auth: string): GrantPayload {
    // The whole query string, or only its value.
    const raw = auth.startsWith('auth=') ? auth.slice('auth='.length) : auth;
    const dot = raw.lastIndexOf('.');
    const invalid = new InvalidInputError('auth is not a query string answered by GetReportageAuthToken for this application');
    if (dot <= 0 || !this.keys.verify('reports', raw.slice(0, dot), raw.slice(dot + 1))) throw invalid;
    let payload: GrantPayload;
    try {
      payload = JSON.parse(Buffer.from(raw.slice(0, dot), 'base64url').toString('utf8')) as GrantPayload;
    } catch {
      throw invalid;
    }
    if (payload.a !== appId || !NAV_PERMISSIONS.includes(payload.n)) throw invalid;
    if (payload.e * 1000 < Date.now()) throw new InvalidInputError('auth has expired; ask GetReportageAuthToken for a new one');
    return payload;
  }

  /** reportUrl as an absolute URL under PUBLIC_URL, or a path (`/reports/…`) read against it. */
  private viewerUrl(reportUrl: string): { path: string; search: string } {
    let url: URL;
    try {
      url = new URL(reportUrl, `${this.config.publicUrl}/`);
    } catch {
      throw new InvalidInputError('reportUrl must be a URL of the report viewer');
    }
    const base = new URL(`${this.config.publicUrl}/`);
    const basePath = base.pathname.replace(/\/$/, '');
    if (url.origin !== base.origin || !url.pathname.startsWith(`${basePath}/reports`)) {
      throw new InvalidInputError(`reportUrl must be a page of the report viewer under ${this.config.publicUrl}/reports/`);
    }
    return { path: url.pathname.slice(basePath.length), search: url.search };
  }
}
