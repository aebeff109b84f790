import { affectedBy, leanInsert, leanRead, rowInsert } from '../../platform/database/lean-read';
import { SystemStateService } from '../../platform/database/system-state.service';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DataSource, LessThan, Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { KeyRing } from '../../platform/crypto/keyring';
import { inOneSqliteTransaction } from '../../platform/database/sqlite-transactions';
import { CoursesService } from '../courses/courses.service';
import { LaunchLinks, type LaunchLinkRequest } from '../player/launch-links';
import { RegistrationsService } from '../registrations/registrations.service';
import { RegistrationCreation } from '../registrations/registration-creation';
import { RegistrationProgress } from '../registrations/registration-progress';
import { SettingsService } from '../settings/settings.service';
import { DispatchesService, type LaunchedDispatch } from './dispatches.service';
import { DispatchEntity } from './entities/dispatch.entity';
import { DispatchNonceEntity } from './entities/dispatch-nonce.entity';
import { DispatchRegistrationEntity } from './entities/dispatch-registration.entity';

/** How long a package's launch token is good for (seconds either side of LCDS's clock). */
/** system_state key of the installation's key for hashed learner ids (hashUserInfo). */
const HASH_KEY_STATE = 'dispatch-learner-hash-key';

export const LAUNCH_TOKEN_LIFETIME = 120;
/** How long the launch page may poll a launch's progress. */
const STATUS_LIFETIME = 24 * 3600;

export type LaunchRefusal = 'invalid' | 'expired' | 'replayed' | 'disabled' | 'dispatchExpired' | 'capReached' | 'noNew' | 'unavailable';

/** What a launch resolved to: the player's launch link and what the launch page's relay needs. */
export interface DispatchLaunch {
  playerUrl: string;
  statusToken: string;
  /** The client LMS's origin (signed into the token): the only one the relay posts to. */
  lmsOrigin: string;
  pollMs: number;
  registrationId: string;
}

/** The claims of a package's launch token (made by the launch page, signed with the dispatch's secret). */
interface PackageClaims {
  k: string;
  l: string;
  n?: string;
  o: string;
  t: number;
  r: string;
  c?: string;
}

/** The learner as LCDS records them: the client LMS's id and name, or a keyed hash of the id and no name. */
export interface DispatchLearner {
  key: string;
  firstName?: string;
  lastName?: string;
}

/** LaunchStatus: what the relay writes into the client LMS. */
export interface LaunchProgress {
  completion: string;
  success: string;
  score?: number;
  totalSeconds: number;
  sessionSeconds: number;
}

/**
 * Launches of dispatches: checks a launch token, creates or resumes the learner's dispatch registration (caps,
 * switches, expiry and instancing applied) and issues the player link; answers the relay's progress polls.
 */
@Injectable()
export class DispatchLaunches {
  private lastNonceSweep = 0;

  constructor(
    @InjectRepository(DispatchRegistrationEntity) private readonly learners: Repository<DispatchRegistrationEntity>,
    @InjectRepository(DispatchNonceEntity) private readonly nonces: Repository<DispatchNonceEntity>,
    private readonly dispatches: DispatchesService,
    private readonly courses: CoursesService,
    private readonly registrations: RegistrationsService,
    private readonly creation: RegistrationCreation,
    private readonly progress: RegistrationProgress,
    private readonly settings: SettingsService,
    private readonly launchLinks: LaunchLinks,
    private readonly keys: KeyRing,
    private readonly state: SystemStateService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  private hashKey: Promise<Buffer> | null = null;

  /** A launch from a dispatch package's page. */
  async fromPackage(token: string, now = Date.now()): Promise<DispatchLaunch | { refused: LaunchRefusal }> {
    const dot = token.lastIndexOf('.');
    if (dot <= 0 || token.length > 4096) return { refused: 'invalid' };
    const payload = token.slice(0, dot);
    const claims = parseClaims(payload);
    if (!claims) return { refused: 'invalid' };
    const d = await this.dispatches.byPackageKey(claims.k);
    if (!d) return { refused: 'invalid' };
    const expected = createHmac('sha256', this.dispatches.secretOf(d)).update(payload).digest();
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { refused: 'invalid' };
    if (Math.abs(now / 1000 - claims.t) > LAUNCH_TOKEN_LIFETIME) return { refused: 'expired' };
    const { firstName, lastName } = splitName(claims.n ?? '');
    // The nonce, the registration and the player link in one transaction on SQLite: one durable commit, not five.
    return inOneSqliteTransaction(this.dataSource, async () => {
      if (!(await this.useNonce(`p.${claims.k}.${claims.r}`, (claims.t + LAUNCH_TOKEN_LIFETIME + 60) * 1000, now))) return { refused: 'replayed' as const };
      return this.launch(d, claims.l, { firstName, lastName }, claims.o, claims.c, new Date(now));
    });
  }

  /**
   * The learner's launch of a dispatch (package or LTI): refused while the dispatch is off, expired or full (nothing is
   * created then); otherwise the learner's registration, resumed, or new (on a new instance when the course changed).
   */
  async launch(
    d: LaunchedDispatch,
    learnerId: string,
    name: { firstName?: string; lastName?: string },
    lmsOrigin: string,
    cssUrl: string | undefined,
    now: Date,
    redirectOnExitUrl = `${this.config.publicUrl}/dispatch/exit`,
  ): Promise<DispatchLaunch | { refused: LaunchRefusal }> {
    if (!d.enabled) return { refused: 'disabled' };
    if (d.expirationDate && d.expirationDate.getTime() <= now.getTime()) return { refused: 'dispatchExpired' };
    const learner = await this.learnerOf(d, learnerId, name);
    const playerLink = (registrationId: string, instance: number): LaunchLinkRequest => ({
      appId: d.appId,
      target: { kind: 'registration', registrationId, instance },
      tracking: true,
      expirySeconds: 60,
      redirectOnExitUrl,
      ...(cssUrl ? { cssUrl } : {}),
      // The destination's launchAuth binds the player session (dispatches have none of their own in the schema).
      launchAuth: d.destinationLaunchAuth,
    });
    const found = await this.registrationOf(d, learner, playerLink);
    if ('refused' in found) return found;
    const { registrationId, instance, totalSeconds } = found;
    const playerUrl = found.playerUrl ?? (await this.launchLinks.issue(playerLink(registrationId, instance)));
    const status = { a: d.appId, g: registrationId, i: instance, s: totalSeconds, e: Math.floor(now.getTime() / 1000) + STATUS_LIFETIME };
    const body = Buffer.from(JSON.stringify(status)).toString('base64url');
    return { playerUrl, statusToken: `${body}.${this.keys.sign('dispatch', body)}`, lmsOrigin, pollMs: await this.pollMs(d), registrationId };
  }

  /** The progress of the launch a status token was issued for; null when the token is not good (or the registration went). */
  async status(token: string, now = Date.now()): Promise<LaunchProgress | null> {
    const [body, sig] = token.split('.');
    if (!body || !sig || !this.keys.verify('dispatch', body, sig)) return null;
    const s = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { a: string; g: string; i: number; s: number; e: number };
    const reg = s.e * 1000 < now ? null : await this.registrations.find(s.a, s.g);
    if (!reg) return null;
    const inst = await this.registrations.requireInstance(s.a, reg, s.i);
    return {
      completion: inst.completion,
      success: inst.success,
      ...(inst.scoreScaled !== null ? { score: inst.scoreScaled } : {}),
      totalSeconds: inst.totalSeconds,
      sessionSeconds: Math.max(0, inst.totalSeconds - s.s),
    };
  }

  async learnerOf(d: DispatchEntity, learnerId: string, name: { firstName?: string; lastName?: string }): Promise<DispatchLearner> {
    if (!d.hashUserInfo) return { key: learnerId, ...name };
    // Keyed by the destination: one learner of one client LMS is one (hidden) learner across its dispatches. The key
    // is the installation's own (sealed in system_state), not derived from the master key: a key rotation must not
    // turn returning learners into new ones.
    this.hashKey ??= this.state.once(HASH_KEY_STATE, () => this.keys.seal(randomBytes(32).toString('hex'))).then(
      (sealed) => Buffer.from(this.keys.open(sealed), 'hex'),
      (err: unknown) => {
        this.hashKey = null;
        throw err;
      },
    );
    const h = createHmac('sha256', await this.hashKey).update(`${d.appId}\n${d.destinationId}\n${learnerId}`).digest('hex');
    return { key: `hashed-${h.slice(0, 40)}` };
  }

  /**
   * The learner's registration and the instance to launch (with the time it had tracked), or why none. A new
   * registration's player link (`playerLink`: what it asks for) is stored with it, its session row in the registration's
   * transaction, and comes back as `playerUrl`.
   */
  private async registrationOf(
    d: DispatchEntity,
    learner: DispatchLearner,
    playerLink: (registrationId: string, instance: number) => LaunchLinkRequest,
  ): Promise<{ registrationId: string; instance: number; totalSeconds: number; playerUrl?: string } | { refused: LaunchRefusal }> {
    // The course is read when the launch needs it (a new registration, or instancing's check of its latest version): a
    // returning learner of a dispatch without instancing resumes without it (deleting a course deletes its
    // registrations, and the player checks the version it opens). From memory on the production stack (launchCourse).
    const courseOf = () => this.courses.launchCourse(d.appId, d.courseId);
    const link = await leanRead(this.learners, ['appId', 'dispatchId', 'learnerKey']).one({ appId: d.appId, dispatchId: d.id, learnerKey: learner.key });
    // The registration with its latest instance, one read.
    const state = link ? await this.progress.launchState(d.appId, link.registrationId, 'latest') : null;
    if (state) {
      const { reg: existing, inst: current } = state;
      if (d.instanced) {
        const course = await courseOf();
        if (!course) return { refused: 'unavailable' };
        if (course.latestVersion > current.courseVersion) {
          await this.registrations.createInstance(d.appId, existing.id);
          return { registrationId: existing.id, instance: existing.latestInstance + 1, totalSeconds: 0 };
        }
      }
      return { registrationId: existing.id, instance: existing.latestInstance, totalSeconds: current.totalSeconds };
    }
    const course = await courseOf();
    if (!course) return { refused: 'unavailable' };
    if (!d.allowNewRegistrations) return { refused: 'noNew' };
    // The cap is checked and the count taken in one statement: two learners racing for the last place cannot both win.
    const taken = await affectedBy(this.dataSource, 'UPDATE dispatch SET registration_count = registration_count + 1 WHERE app_id = ? AND id = ? AND (registration_cap = 0 OR registration_count < registration_cap)', [d.appId, d.id]);
    if (!taken) return { refused: 'capReached' };
    const registrationId = registrationIdOf(d, learner.key);
    // The learner's link to the registration, written in the registration's transaction (MySQL: pipelined with its
    // rows); skipped if a launch at the same moment wrote it first.
    const learnerLink = rowInsert(this.learners, { appId: d.appId, dispatchId: d.id, learnerKey: learner.key, registrationId, createdAt: new Date() }, true);
    const player = this.launchLinks.prepare(playerLink(registrationId, 0));
    // Created unless it exists (a taken id fails the creation; no read of our own before it).
    await this.creation
      .create(d.appId, {
        registrationId,
        courseId: d.courseId,
        learner: { id: learner.key, ...(learner.firstName ? { firstName: learner.firstName } : {}), ...(learner.lastName ? { lastName: learner.lastName } : {}) },
        ...(d.postBack ? { postBack: this.registrations.openPostBack(d.postBack) } : {}),
      }, undefined, { course, also: [learnerLink, player.statement] })
      .catch(async (err: unknown) => {
        // Not created here, so the place taken above is given back: the same learner launching twice at once (or a
        // registration whose link row went missing) has its registration, counted by the launch that created it; the
        // application's registration limit (…) refused it.
        await affectedBy(this.dataSource, 'UPDATE dispatch SET registration_count = registration_count - 1 WHERE app_id = ? AND id = ? AND registration_count > 0', [d.appId, d.id]);
        if (!(await this.registrations.find(d.appId, registrationId))) throw err;
        await affectedBy(this.dataSource, learnerLink.sql, learnerLink.params);
        await affectedBy(this.dataSource, player.statement.sql, player.statement.params);
      });
    return { registrationId, instance: 0, totalSeconds: 0, playerUrl: player.url };
  }

  /** Records a token's nonce; false when it was seen before (a replay). Expired nonces are swept now and then. */
  async useNonce(nonce: string, expiresAt: number, now: number): Promise<boolean> {
    if (now - this.lastNonceSweep > 60_000) {
      this.lastNonceSweep = now;
      await this.nonces.delete({ expiresAt: LessThan(new Date(now)) });
    }
    const key = nonce.length > 191 ? createHash('sha256').update(nonce).digest('base64url') : nonce;
    try {
      await leanInsert(this.nonces, ['nonce', 'expiresAt']).run({ nonce: key, expiresAt: new Date(expiresAt) });
      return true;
    } catch (err) {
      if (await this.nonces.existsBy({ nonce: key })) return false;
      throw err;
    }
  }

  /** DispatchPollingFrequency as the course has it (application or course level; a registration's own is not read). */
  private async pollMs(d: DispatchEntity): Promise<number> {
    const values = await this.settings.effective(d.appId, { level: 'course', courseId: d.courseId }, ['DispatchPollingFrequency']);
    const ms = Number(values.get('DispatchPollingFrequency'));
    return Number.isFinite(ms) && ms >= 250 ? Math.min(ms, 60_000) : 1500;
  }
}

function parseClaims(payload: string): PackageClaims | null {
  let c: unknown;
  try {
    c = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof c !== 'object' || c === null) return null;
  const o = c as Record<string, unknown>;
  const str = (v: unknown, max: number) => typeof v === 'string' && v.length > 0 && v.length <= max;
  if (!str(o.k, 64) || !str(o.l, 191) || !str(o.o, 2048) || !str(o.r, 64) || typeof o.t !== 'number') return null;
  if (o.n !== undefined && (typeof o.n !== 'string' || o.n.length > 511)) return null;
  if (o.c !== undefined && (typeof o.c !== 'string' || !/^https?:\/\//i.test(o.c) || o.c.length > 2048)) return null;
  if (!isWebOrigin(o.o as string)) return null;
  return o as unknown as PackageClaims;
}

/** `https://lms.example` (or http): what postMessage may target and frame-ancestors may name. */
export function isWebOrigin(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === value;
  } catch {
    return false;
  }
}

/** SCORM's `Last, First` (cmi.core.student_name, cmi.learner_name); a name without a comma is a first name. */
export function splitName(name: string): { firstName?: string; lastName?: string } {
  const n = name.trim();
  if (!n) return {};
  const comma = n.indexOf(',');
  if (comma < 0) return { firstName: n.slice(0, 255) };
  const lastName = n.slice(0, comma).trim().slice(0, 255);
  const firstName = n.slice(comma + 1).trim().slice(0, 255);
  return { ...(firstName ? { firstName } : {}), ...(lastName ? { lastName } : {}) };
}

/** The same registration id each time for one learner of one dispatch (two launches at once make one registration). */
function registrationIdOf(d: DispatchEntity, learnerKey: string): string {
  const h = createHash('sha256').update(`${d.appId}\n${d.id}\n${d.packageKey}\n${learnerKey}`).digest('hex');
  return `dispatch-${h.slice(0, 32)}`;
}
