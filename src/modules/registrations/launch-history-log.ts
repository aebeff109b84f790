import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { runHotStatement } from '../../platform/database/hot-statement';

/**
 * The launch's history log (LaunchHistorySchema.historyLog): one line per event, `<ISO time> <kind> <details>`, in the
 * launch_history row's history_log column (LONGTEXT on MySQL, TEXT on SQLite).
 *
 * Bounded: the log keeps its first HISTORY_LOG_CAP characters. A batch of lines that would pass the cap is dropped,
 * with one line saying so where it happened; the launch's last server lines (exit) have a small reserve above the
 * cap, so a full log still ends with how the launch ended. The oldest are kept because the start of a launch (the
 * SCO's Initialize, its first errors) is what explains a misbehaving course, and because appending is one UPDATE,
 * where keeping the newest would rewrite up to the whole log on every batch.
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

/**
 * Appends lines to launch histories' logs within the cap. The SQL fragment is also used by the commit path's UPDATE
 * of launch_history (commit-store.ts), so a commit's line costs no statement of its own.
 */
@Injectable()
export class LaunchHistoryLog {
  private readonly mysql: boolean;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.mysql = dataSource.options.type === 'mysql';
  }

  /** Appends `text` (whole lines) to one launch's log; `closing`: the launch's last lines, which may use the reserve. */
  async append(appId: string, launchHistoryId: string, text: string, closing = false): Promise<void> {
    if (!text) return;
    const { sql, values } = appendHistorySql(this.mysql, text, closing);
    await runHotStatement(this.dataSource, `UPDATE launch_history SET history_log = ${sql} WHERE app_id = ? AND id = ?`, [...values, appId, launchHistoryId]);
  }
}

/**
 * `history_log` with `text` appended if it fits under the cap (with `closing`, the cap and the reserve); else, while
 * the log is under the cap, with a line saying what was dropped; else as it is. Empty text changes nothing. One
 * statement shape whatever the text (the limit is a parameter). Portable: CHAR_LENGTH/CONCAT on MySQL, LENGTH/|| on
 * SQLite (both count characters).
 */
export function appendHistorySql(mysql: boolean, text: string, closing: boolean): { sql: string; values: unknown[] } {
  const len = (e: string) => (mysql ? `CHAR_LENGTH(${e})` : `LENGTH(${e})`);
  const cat = (a: string, b: string) => (mysql ? `CONCAT(${a}, ${b})` : `(${a} || ${b})`);
  const cur = "COALESCE(history_log, '')";
  const lines = text.split('\n').length - 1;
  const dropped = text ? historyLine('log', `full: ${lines} line(s) dropped here (${text.length} characters); the log keeps its first ${HISTORY_LOG_CAP} characters`) : '';
  return {
    sql: `CASE WHEN ${len(cur)} + ? <= ? THEN ${cat(cur, '?')} WHEN ${len(cur)} < ${HISTORY_LOG_CAP} THEN ${cat(cur, '?')} ELSE history_log END`,
    values: [text.length, HISTORY_LOG_CAP + (closing ? HISTORY_LOG_RESERVE : 0), text, dropped],
  };
}
