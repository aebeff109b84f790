import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { KeyRing } from '../../platform/crypto/keyring';
import { OutboundHttp } from '../../platform/outbound/outbound-http';
import { DispatchesService } from './dispatches.service';
import { DispatchLaunches, LaunchProgress, LaunchRefusal, splitName } from './dispatch-launches';
import { packageSignature } from './dispatch-package';
import { httpUrl, sameText } from './dispatch-xapi';

/** What the AICC relay page needs. */
export interface AiccRelayConfig {
  playerUrl: string;
  status: string;
  relay: string;
  every: number;
}

/** The relay token lives as long as the launch's status token (a day). */
const RELAY_LIFETIME = 24 * 3600;

/**
 * AICC (HACP) dispatch packages: the LMS launches the AU (LCDS's page) with `aicc_sid` and `aicc_url`; LCDS asks the
 * LMS for the learner (GetParam, server to server), launches them, and its page asks LCDS to send the progress
 * (PutParam: lesson status, score, session time) whenever it changes, then ExitAU when the player leaves the course.
 * The HACP URL is kept in a token LCDS signs, so the page cannot point LCDS elsewhere; requests go through the
 * outbound policy.
 */
@Injectable()
export class DispatchAicc {
  private readonly logger = new Logger(DispatchAicc.name);

  constructor(
    private readonly dispatches: DispatchesService,
    private readonly launches: DispatchLaunches,
    private readonly keys: KeyRing,
    private readonly outbound: OutboundHttp,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async launch(key: string, signature: string, query: Record<string, unknown>, now = new Date()): Promise<AiccRelayConfig | { refused: LaunchRefusal }> {
    const d = await this.dispatches.byPackageKey(key);
    if (!d || !sameText(packageSignature(d, this.dispatches.secretOf(d), 'aicc'), signature)) return { refused: 'invalid' };
    // HACP parameter names are case-insensitive.
    const q = new Map(Object.entries(query).map(([k, v]) => [k.toLowerCase(), typeof v === 'string' ? v : undefined]));
    const sid = q.get('aicc_sid');
    const url = httpUrl(q.get('aicc_url'));
    if (!sid || sid.length > 255 || !url) return { refused: 'invalid' };
    const core = await this.hacp(url, 'GetParam', sid, '').then(parseCore, (err: unknown) => {
      this.logger.warn(`AICC GetParam to ${new URL(url).origin} failed: ${String(err)}`);
      return null;
    });
    const learnerId = core?.get('student_id');
    if (!core || !learnerId || learnerId.length > 191) return { refused: 'invalid' };
    const cssUrl = httpUrl(q.get('cssurl'));
    const result = await this.launches.launch(d, learnerId, splitName(core.get('student_name') ?? ''), new URL(this.config.publicUrl).origin, cssUrl, now);
    if ('refused' in result) return result;
    const body = Buffer.from(JSON.stringify({ s: sid, u: url, t: result.statusToken, e: Math.floor(now.getTime() / 1000) + RELAY_LIFETIME })).toString('base64url');
    return { playerUrl: result.playerUrl, status: `/dispatch/status/${result.statusToken}`, relay: `/dispatch/aicc-relay/${body}.${this.keys.sign('dispatch', `aicc.${body}`)}`, every: result.pollMs };
  }

  /** PutParam with the launch's current progress (read here, not taken from the page); ExitAU after it at the exit. */
  async relay(token: string, exit: boolean, now = Date.now()): Promise<boolean> {
    const [body, sig] = token.split('.');
    if (!body || !sig || !this.keys.verify('dispatch', `aicc.${body}`, sig)) return false;
    const r = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { s: string; u: string; t: string; e: number };
    if (r.e * 1000 < now) return false;
    const progress = await this.launches.status(r.t, now);
    if (!progress) return false;
    try {
      await this.hacp(r.u, 'PutParam', r.s, coreData(progress));
      if (exit) await this.hacp(r.u, 'ExitAU', r.s, '');
    } catch (err) {
      this.logger.warn(`AICC PutParam/ExitAU to ${new URL(r.u).origin} failed: ${String(err)}`);
      throw err;
    }
    return true;
  }

  private async hacp(url: string, command: string, sid: string, aiccData: string): Promise<string> {
    const form = new URLSearchParams({ command, version: '4.0', session_id: sid, aicc_data: aiccData });
    const res = await this.outbound.post(url, form.toString(), { 'content-type': 'application/x-www-form-urlencoded' }, 15_000);
    if (res.status !== 200) throw new Error(`the LMS answered HTTP ${res.status}`);
    const error = /^\s*error\s*=\s*(\d+)/im.exec(res.body)?.[1];
    if (error !== '0') throw new Error(`the LMS answered error=${error ?? '?'} to ${command}`);
    return res.body;
  }
}

/** The [Core] keywords of a GetParam answer, by lower-case name. */
function parseCore(answer: string): Map<string, string> {
  const data = /aicc_data\s*=([\s\S]*)$/im.exec(answer)?.[1] ?? '';
  const core = new Map<string, string>();
  let section = '';
  for (const line of data.split(/\r?\n/)) {
    const head = /^\s*\[([^\]]+)\]/.exec(line);
    if (head) section = head[1].trim().toLowerCase();
    else if (section === 'core') {
      const eq = line.indexOf('=');
      if (eq > 0) core.set(line.slice(0, eq).trim().toLowerCase(), line.slice(eq + 1).trim());
    }
  }
  return core;
}

/** PutParam's aicc_data: lesson status (passed/failed, else completed/incomplete), score 0–100, session time. */
function coreData(p: LaunchProgress): string {
  const status = p.success === 'PASSED' ? 'passed' : p.success === 'FAILED' ? 'failed' : p.completion === 'COMPLETED' ? 'completed' : 'incomplete';
  const t = Math.round(p.sessionSeconds);
  const time = [Math.floor(t / 3600), Math.floor(t / 60) % 60, t % 60].map((n) => String(n).padStart(2, '0')).join(':');
  const score = p.score !== undefined ? String(Math.round(p.score * 10000) / 100) : '';
  return `[Core]\r\nLesson_Status=${status}\r\nScore=${score}\r\nTime=${time}\r\n`;
}
