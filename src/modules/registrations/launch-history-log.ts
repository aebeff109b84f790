import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { LaunchHistoryEntity } from './entities/launch-history.entity';
import { LaunchHistoryLogEntity } from './entities/launch-history-log.entity';

/**
 * The launch's history log (LaunchHistorySchema.historyLog): one line per event, `<ISO time> <kind> <details>`. Its
 * first line (the launch) is in the launch_history row's history_log column; the rest is appended in parts
 * (launch_history_log rows, one a batch), so that appending never rewrites what is there.
 *
 * Bounded: the log keeps its first HISTORY_LOG_CAP characters (counted in launch_history.history_log_chars). A batch
 * of lines that would pass the cap is dropped, with one line saying so where it happened; the launch's last server
 * lines (exit) have a small reserve above the cap, so a full log still ends with how the launch ended. The oldest are
 * kept because the start of a launch (the SCO's Initialize, its first errors) is what explains a misbehaving course,
 * and because keeping the newest would mean deleting parts on the way.
 */
export const HISTORY_LOG_CAP = 1024 * 1024;
/** Characters above the cap that the launch's closing lines (exit) may still use. */
export const HISTORY_LOG_RESERVE = 4096;
/** Longest line kept (a longer one is cut, saying how long it was). */
export const HISTORY_LINE_MAX = 8192;

/** How much of an area the log records: audit = what happened; detailed = also the details (full values, error texts). */
export type HistoryLevel = 'audit' | 'detailed';

/** What a launch records in its history log, resolved from its settings at launch (absent: nothing). */
export interface HistoryCapture {
  /** The SCO's runtime calls (browser), the AICC HACP commands, the LRS calls of the launch token, commits applied. */
  rte?: HistoryLevel;
  /** Navigation requests with the sequencer's decision or refusal. */
  seq?: HistoryLevel;
  /** Launch, activity switches, exit. */
  control?: HistoryLevel;
  /** Runtime call lines carry how long the call took. */
  timings?: boolean;
}

export const HISTORY_SETTING_IDS = [
  'PlayerCaptureHistory',
  'PlayerCaptureHistoryDetailed',
  'PlayerDebugRteAudit',
  'PlayerDebugRteDetailed',
  'PlayerDebugSequencingAudit',
  'PlayerDebugSequencingDetailed',
  'PlayerDebugControlAudit',
  'PlayerDebugControlDetailed',
  'PlayerDebugIncludeTimestamps',
] as const;

const yes = (value: string | undefined) => /^(yes|true)$/i.test(value ?? '');

/**
 * What a launch captures: nothing without PlayerCaptureHistory; an area (Rte, Sequencing, Control) at the detailed
 * level when its PlayerDebug…Detailed flag and PlayerCaptureHistoryDetailed are on, at the audit level when one of its
 * PlayerDebug… flags is on (V1's `debugX=detailed` sets only …Detailed), not at all when both are off.
 */
export function historyCaptureOf(values: ReadonlyMap<string, string>): HistoryCapture | undefined {
  if (!yes(values.get('PlayerCaptureHistory') ?? 'YES')) return undefined;
  const detailed = yes(values.get('PlayerCaptureHistoryDetailed'));
  const level = (area: 'Rte' | 'Sequencing' | 'Control'): HistoryLevel | undefined => {
    const d = yes(values.get(`PlayerDebug${area}Detailed`) ?? 'true');
    const a = yes(values.get(`PlayerDebug${area}Audit`) ?? 'true');
    return d && detailed ? 'detailed' : d || a ? 'audit' : undefined;
  };
  const capture: HistoryCapture = {};
  const rte = level('Rte');
  const seq = level('Sequencing');
  const control = level('Control');
  if (rte) capture.rte = rte;
  if (seq) capture.seq = seq;
  if (control) capture.control = control;
  if (yes(values.get('PlayerDebugIncludeTimestamps') ?? 'true')) capture.timings = true;
  return capture;
}

/** One line of the log: its time, its kind, its details on one line (line breaks escaped), cut at HISTORY_LINE_MAX. */
export function historyLine(kind: string, details: string, at: Date = new Date()): string {
  const text = `${at.toISOString()} ${kind} ${details.replace(/\r?\n|\r/g, '\\n')}`;
  return (text.length > HISTORY_LINE_MAX ? `${text.slice(0, HISTORY_LINE_MAX)}… (${text.length} characters)` : text) + '\n';
}

const TIME_PREFIX = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /;

/**
 * The log as the API answers it: its lines in time order (stable). Lines arrive by several paths (the server's own,
 * the browser's batches, the LRS) whose order of arrival is not the order of events; each line's time says it.
 */
export function historyLogForReading(log: string | null): string {
  if (!log) return '';
  const lines = log.split('\n');
  const ended = lines[lines.length - 1] === '';
  if (ended) lines.pop();
  const keyed = lines.map((line, i) => ({ line, i, at: TIME_PREFIX.test(line) ? line.slice(0, 24) : '' }));
  keyed.sort((a, b) => (a.at && b.at && a.at !== b.at ? (a.at < b.at ? -1 : 1) : a.i - b.i));
  return keyed.map((k) => k.line).join('\n') + (ended ? '\n' : '');
}

/** The launch whose log a line goes to. */
export interface LaunchLogTarget {
  appId: string;
  registrationId: string;
  instance: number;
  launchHistoryId: string;
}

/** The line that says a batch was dropped at the cap. */
const droppedLine = (text: string): string =>
  historyLine('log', `full: ${text.split('\n').length - 1} line(s) dropped here (${text.length} characters); the log keeps its first ${HISTORY_LOG_CAP} characters`);

const limitOf = (closing: boolean) => HISTORY_LOG_CAP + (closing ? HISTORY_LOG_RESERVE : 0);

/**
 * Appends lines to launches' logs within the cap: a part row (an INSERT, never a rewrite of the log) when the
 * launch's count of characters (launch_history.history_log_chars) leaves room, else, while under the cap, a line
 * saying what was dropped. `closing`: the launch's last lines, which may use the reserve.
 */
@Injectable()
export class LaunchHistoryLog {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** `target`: a launch, or a player session (nothing when it has no launch). */
  async append(target: Omit<LaunchLogTarget, 'launchHistoryId'> & { launchHistoryId: string | null }, text: string, closing = false): Promise<void> {
    const { appId, registrationId, instance, launchHistoryId } = target;
    if (launchHistoryId) await appendHistoryLog(this.dataSource.manager, { appId, registrationId, instance, launchHistoryId }, text, closing);
  }

  /** The logs of launches (their first line and their parts in order), for the API: lines in time order. */
  async read(appId: string, launches: Array<Pick<LaunchHistoryEntity, 'id' | 'historyLog'>>): Promise<Map<string, string>> {
    const parts = launches.length
      ? await this.dataSource.getRepository(LaunchHistoryLogEntity).find({ where: { appId, launchHistoryId: In(launches.map((l) => l.id)) }, order: { seq: 'ASC' }, select: { launchHistoryId: true, text: true, seq: true } })
      : [];
    const texts = new Map(launches.map((l) => [l.id, l.historyLog ?? '']));
    for (const p of parts) texts.set(p.launchHistoryId, (texts.get(p.launchHistoryId) ?? '') + p.text);
    return new Map([...texts].map(([id, text]) => [id, historyLogForReading(text)]));
  }
}

/** LaunchHistoryLog.append in a transaction of its own (`m`: its entity manager), on either stack. */
export async function appendHistoryLog(m: EntityManager, target: LaunchLogTarget, text: string, closing: boolean): Promise<void> {
  if (!text) return;
  const where = 'app_id = :appId AND id = :id';
  const params = { appId: target.appId, id: target.launchHistoryId, n: text.length, limit: limitOf(closing), cap: HISTORY_LOG_CAP };
  const counted = await m
    .createQueryBuilder()
    .update(LaunchHistoryEntity)
    .set({ historyLogChars: () => 'history_log_chars + :n' })
    .where(`${where} AND history_log_chars + :n <= :limit`, params)
    .execute();
  let part = text;
  if (!counted.affected) {
    part = droppedLine(text);
    const marked = await m
      .createQueryBuilder()
      .update(LaunchHistoryEntity)
      .set({ historyLogChars: () => 'history_log_chars + :m' })
      .where(`${where} AND history_log_chars < :cap`, { ...params, m: part.length })
      .execute();
    if (!marked.affected) return;
  }
  await m.insert(LaunchHistoryLogEntity, { appId: target.appId, registrationId: target.registrationId, instance: target.instance, launchHistoryId: target.launchHistoryId, text: part });
}

/**
 * The commit path's append on MySQL (statements for its pipelined transaction): the part, if the launch's count
 * leaves room (its row locked first, as the count's UPDATE that follows would), then the count. A commit's line
 * that does not fit is dropped without a line saying so (the page's batches, far larger, have said it).
 */
export function hotAppendStatements(target: LaunchLogTarget, text: string, closing: boolean): Array<{ sql: string; values: unknown[] }> {
  const limit = limitOf(closing);
  return [
    {
      sql: 'INSERT INTO launch_history_log (app_id, registration_id, instance, launch_history_id, text) SELECT ?, ?, ?, ?, ? FROM launch_history WHERE app_id = ? AND id = ? AND history_log_chars + ? <= ? FOR UPDATE',
      values: [target.appId, target.registrationId, target.instance, target.launchHistoryId, text, target.appId, target.launchHistoryId, text.length, limit],
    },
    {
      sql: 'UPDATE launch_history SET history_log_chars = history_log_chars + ? WHERE app_id = ? AND id = ? AND history_log_chars + ? <= ?',
      values: [text.length, target.appId, target.launchHistoryId, text.length, limit],
    },
  ];
}
