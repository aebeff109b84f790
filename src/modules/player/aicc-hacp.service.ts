import { emptyRecord } from '../../platform/records';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import {
  flatValue,
  getParamData,
  HACP_COMMANDS,
  hacpResponse,
  HacpCommand,
  interactionCount,
  interactionsToCmi,
  objectivesToCmi,
  parseHacpTable,
  putParamToCmi,
} from './aicc-hacp';
import { historyLine, LaunchHistoryLog } from '../registrations/launch-history-log';
import { PlayerError } from './player-errors';
import { PlayerSessionEntity } from './player-session.entity';
import { PlayerService } from './player.service';
import { PlayerCommitService } from './player-commit.service';
import { PlayerSessions } from './player-sessions';
import type { FlatCmi } from './scorm-runtime';

/** The fields of a HACP request (form field names are case-insensitive). */
export interface HacpRequest {
  command: string;
  sessionId: string;
  aiccData: string;
  auPassword?: string;
}

export function hacpRequestOf(body: unknown): HacpRequest {
  const form = emptyRecord<string>();
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) if (typeof v === 'string') form[k.toLowerCase()] = v;
  }
  return { command: (form['command'] ?? '').trim(), sessionId: (form['session_id'] ?? '').trim(), aiccData: form['aicc_data'] ?? '', ...(form['au_password'] !== undefined ? { auPassword: form['au_password'] } : {}) };
}

const isCommand = (command: string): command is HacpCommand => (HACP_COMMANDS as readonly string[]).includes(command);

/**
 * The LMS side of HACP: GetParam answers from the activity's stored state, PutParam / PutInteractions /
 * PutObjectives / ExitAU turn into the flat SCORM 1.2 data model and go through the player's commit (with a seq
 * the session keeps), so AICC results are recorded and rolled up exactly as SCORM 1.2 results are.
 * PutComments, PutPath and PutPerformance are accepted and not kept.
 */
@Injectable()
export class AiccHacpService {
  /** One request at a time per session (an AU's posts build on each other's state). */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly player: PlayerService,
    private readonly playerSessions: PlayerSessions,
    private readonly commits: PlayerCommitService,
    @InjectRepository(PlayerSessionEntity) private readonly sessions: Repository<PlayerSessionEntity>,
    private readonly historyLog: LaunchHistoryLog,
  ) {}

  async handle(req: HacpRequest): Promise<string> {
    const command = req.command.toLowerCase() as HacpCommand;
    if (!req.sessionId) return hacpResponse(isCommand(command) ? 3 : 1);
    const key = req.sessionId.toLowerCase();
    const run = (this.queues.get(key) ?? Promise.resolve()).then(() => this.run(command, req));
    const settled = run.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return run;
  }

  /** What the player page shows of the AU running now: its completion, and whether it sent ExitAU. */
  async status(token: string): Promise<{ activityId: string; completion?: string; exited: boolean; exit?: string; registrationCompletion?: string; registrationSuccess?: string }> {
    const session = await this.playerSessions.requireSession(token);
    const state = session.settings.aicc;
    const activityId = session.settings.activityId!;
    const mine = state?.activityId === activityId;
    // After ExitAU: the AU's cmi.core.exit and the course's state, which the page's exit actions depend on.
    const exited = !!(mine && state?.exited);
    return {
      activityId,
      ...(mine && state?.completion ? { completion: state.completion } : {}),
      exited,
      ...(exited ? { exit: state?.cmi?.['cmi.core.exit'] ?? '', ...state?.course } : {}),
    };
  }

  private async run(command: HacpCommand, req: HacpRequest): Promise<string> {
    const found = await this.player.aiccSession(req.sessionId);
    if (!found) return hacpResponse(isCommand(command) ? 3 : 1);
    // An unknown command of a session is answered (error 1) and logged like the others.
    const answer = isCommand(command) ? await this.answer(command, req, found) : hacpResponse(1);
    // The launch's history log: each command with its aicc_data (audit: its start) and the error code answered.
    const { session } = found;
    const rte = session.settings.history?.rte;
    if (rte && session.launchHistoryId) {
      const data = req.aiccData.trim().replace(/^(\s*au_password\s*=).*$/gim, '$1***');
      const shown = rte === 'detailed' || data.length <= 200 ? data : `${data.slice(0, 200)}… (${data.length} characters)`;
      const error = /error\s*=\s*(\d+)/i.exec(answer)?.[1] ?? '?';
      const text = /error_text\s*=\s*(.*)/i.exec(answer)?.[1]?.trim();
      await this.historyLog.append(session, historyLine('hacp', `${req.command}${shown ? ` aicc_data=${JSON.stringify(shown)}` : ''}: error ${error}${text ? ` (${text})` : ''}`));
    }
    return answer;
  }

  private async answer(command: HacpCommand, req: HacpRequest, found: NonNullable<Awaited<ReturnType<PlayerService['aiccSession']>>>): Promise<string> {
    const { session, token, launch, launchable } = found;
    const password = typeof launchable.data.auPassword === 'string' ? launchable.data.auPassword : '';
    const given = req.auPassword ?? /^\s*au_password\s*=\s*(.*?)\s*$/im.exec(req.aiccData)?.[1];
    if (password && given !== undefined && given !== password) return hacpResponse(2);
    const state = session.settings.aicc ?? { seq: 0 };
    const cmi: FlatCmi = state.activityId === launch.activityId && state.cmi ? state.cmi : launch.cmi;
    const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

    let next: FlatCmi;
    switch (command) {
      case 'getparam':
        return hacpResponse(
          0,
          getParamData(cmi, {
            coreVendor: str(launchable.data.coreVendor),
            masteryScore: str(launchable.data.masteryScore),
            maxTimeAllowed: str(launchable.data.maxTimeAllowed),
            timeLimitAction: str(launchable.data.timeLimitAction),
          }),
        );
      case 'putparam': {
        const put = putParamToCmi(req.aiccData);
        if ('problem' in put) return hacpResponse(1, undefined, `Invalid aicc_data: ${put.problem}`);
        next = { ...cmi, ...put.cmi };
        // A raw score without a maximum is out of the AU's Max_Score (.au), so it scales like SCORM 1.2 ones do.
        if (put.cmi['cmi.core.score.raw'] !== undefined && put.cmi['cmi.core.score.max'] === undefined && str(launchable.data.maxScore)) {
          next['cmi.core.score.max'] = str(launchable.data.maxScore);
          next['cmi.core.score.min'] ??= '0';
        }
        next = { ...next, ...objectivesToCmi(put.objectives, next) };
        break;
      }
      case 'putinteractions':
        next = { ...cmi, ...interactionsToCmi(parseHacpTable(req.aiccData), interactionCount(cmi)) };
        break;
      case 'putobjectives':
        next = { ...cmi, ...objectivesToCmi(parseHacpTable(req.aiccData), cmi) };
        break;
      case 'exitau':
        next = cmi;
        break;
      default:
        return hacpResponse(0);
    }
    const seq = state.seq + 1;
    let outcome: { activityCompletion?: string; registrationCompletion?: string; registrationSuccess?: string };
    try {
      outcome = await this.commits.commit(token, { seq, activityId: launch.activityId, cmi: next, ...(command === 'exitau' ? { final: true } : {}) });
    } catch (err) {
      if (!(err instanceof PlayerError)) throw err;
      return err.status === 410 ? hacpResponse(3) : hacpResponse(1, undefined, err.message);
    }
    const kept = Object.fromEntries(Object.entries(next).flatMap(([k, v]) => (flatValue(v) === undefined ? [] : [[k, flatValue(v)!]])));
    const completion = outcome.activityCompletion ?? state.completion;
    const course = outcome.registrationCompletion ? { registrationCompletion: outcome.registrationCompletion, registrationSuccess: outcome.registrationSuccess ?? 'UNKNOWN' } : state.course;
    const aicc = { seq, activityId: launch.activityId, cmi: kept, ...(completion ? { completion } : {}), ...(course ? { course } : {}), ...(command === 'exitau' ? { exited: true } : {}) };
    await this.sessions.update({ id: session.id }, { settings: { ...session.settings, aicc } });
    return hacpResponse(0);
  }
}
