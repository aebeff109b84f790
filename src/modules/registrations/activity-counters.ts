import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { ActivityTally, parseTree, questionAnalysis } from './activity-tally';
import type { ActivityProgress, QuestionAnalysis } from './registration-statistics-types';

/** Registrations whose trees are read at a time (a tree can be tens of kilobytes). */
const TREE_CHUNK = 1000;
const INSERT_CHUNK = 200;
const TABLES = ['report_activity_day', 'report_question_day', 'report_answer_day'] as const;

/** Tallies by bucket: `course NUL day` → the tally of that bucket's registrations' latest trees. */
export type BucketTallies = Map<string, ActivityTally>;

/** Which counters a read sums: `where` over app_id, course_id and created_day. */
export interface CounterWhere {
  where: string;
  params: string[];
}

const key = (...parts: string[]) => createHash('sha1').update(parts.join('\n')).digest('hex');

/**
 * The counters of progress per activity and question analysis, per application, course and UTC day of creation,
 * of the registrations' latest instances' activity trees: report_activity_day (attempted, completed, passed),
 * report_question_day (answered, correct, latency) and report_answer_day (how many gave each wrong final answer).
 * Kept by RegistrationSummaries with its other summaries: a bucket is recomputed whole from its registrations' trees
 * when they changed (never incremented), so the runtime commit path writes nothing more. Rows are keyed by SHA-1 of
 * the ids and the answer (they can be longer than an index allows).
 */
export class ActivityCounters {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The tallies of the registrations `where` selects (alias r, latest instance i), added to `into`, TREE_CHUNK
   * registrations at a time in primary key order. `day` formats a date column as YYYY-MM-DD. Returns the trees read.
   */
  async tally(m: EntityManager, where: string, params: unknown[], day: (column: string) => string, latestJoin: string, into: BucketTallies): Promise<number> {
    let read = 0;
    for (let after = ''; ; ) {
      const rows = await m.query<Array<{ id: string; course_id: string; d: string; tree: string | null }>>(
        `SELECT r.id AS id, r.course_id AS course_id, ${day('r.created_at')} AS d, i.activity_details AS tree ${latestJoin} WHERE ${where} AND r.id > ? ORDER BY r.id LIMIT ${TREE_CHUNK}`,
        [...params, after],
      );
      for (const r of rows) {
        const bucket = `${r.course_id}\u0000${String(r.d)}`;
        let t = into.get(bucket);
        if (!t) into.set(bucket, (t = new ActivityTally()));
        t.add(parseTree(r.tree));
      }
      read += rows.length;
      if (rows.length < TREE_CHUNK) return read;
      after = rows[rows.length - 1].id;
    }
  }

  /** Deletes the counters `where` selects (over app_id, course_id, created_day). */
  async remove(m: EntityManager, where: string, params: unknown[]): Promise<void> {
    for (const table of TABLES) await m.query(`DELETE FROM ${table} WHERE ${where}`, params);
  }

  async write(m: EntityManager, appId: string, tallies: BucketTallies): Promise<void> {
    const activities: unknown[][] = [];
    const questions: unknown[][] = [];
    const answers: unknown[][] = [];
    for (const [bucket, t] of tallies) {
      const [courseId, day] = bucket.split('\u0000');
      for (const a of t.activities.values()) activities.push([appId, courseId, day, key(a.id), a.id, a.title ?? '', a.depth, a.position, a.attempted, a.completed, a.passed]);
      for (const q of t.questions.values()) {
        const qk = key(q.activityId, q.id);
        questions.push([appId, courseId, day, qk, q.activityId, q.id, q.description, q.type, q.position, q.ordinal, q.answered, q.correct, q.latencyCount, q.latencySum]);
        for (const [response, n] of q.wrong) answers.push([appId, courseId, day, qk, key(response), response, n]);
      }
    }
    const base = ['app_id', 'course_id', 'created_day'];
    await insertRows(m, 'report_activity_day', [...base, 'activity_key', 'activity_id', 'title', 'depth', 'tree_position', 'attempted', 'completed', 'passed'], activities);
    await insertRows(
      m,
      'report_question_day',
      [...base, 'question_key', 'activity_id', 'interaction_id', 'description', 'interaction_type', 'tree_position', 'ordinal', 'answered', 'correct', 'latency_count', 'latency_sum'],
      questions,
    );
    await insertRows(m, 'report_answer_day', [...base, 'question_key', 'response_key', 'response', 'wrong'], answers);
  }

  /** Progress per activity and question analysis summed over the counters `c` selects (a course's, over whole days). */
  async analysis(c: CounterWhere): Promise<{ activities: ActivityProgress[]; questions: QuestionAnalysis[] }> {
    type Num = string | number;
    const activities = await this.dataSource.query<Array<{ id: string; title: string; depth: Num; position: Num; attempted: Num; completed: Num; passed: Num }>>(
      `SELECT MAX(activity_id) AS id, MAX(title) AS title, MIN(depth) AS depth, MIN(tree_position) AS position, SUM(attempted) AS attempted, SUM(completed) AS completed, SUM(passed) AS passed
       FROM report_activity_day WHERE ${c.where} GROUP BY activity_key`,
      c.params,
    );
    const questions = await this.dataSource.query<
      Array<{ question_key: string; id: string; description: string; type: string; position: Num; ordinal: Num; answered: Num; correct: Num; latency_count: Num; latency_sum: Num }>
    >(
      `SELECT question_key, MAX(interaction_id) AS id, MAX(description) AS description, MAX(interaction_type) AS type, MIN(tree_position) AS position, MIN(ordinal) AS ordinal,
         SUM(answered) AS answered, SUM(correct) AS correct, SUM(latency_count) AS latency_count, SUM(latency_sum) AS latency_sum
       FROM report_question_day WHERE ${c.where} GROUP BY question_key`,
      c.params,
    );
    const answers = await this.dataSource.query<Array<{ question_key: string; response: string; n: Num }>>(
      `SELECT question_key, MAX(response) AS response, SUM(wrong) AS n FROM report_answer_day WHERE ${c.where} GROUP BY question_key, response_key`,
      c.params,
    );
    const wrong = new Map<string, Map<string, number>>();
    for (const a of answers) {
      let w = wrong.get(a.question_key);
      if (!w) wrong.set(a.question_key, (w = new Map<string, number>()));
      w.set(a.response ?? '', Number(a.n));
    }
    const byPlace = <T extends { position: Num; id: string }>(x: T, y: T, tie = 0) => Number(x.position) - Number(y.position) || tie || x.id.localeCompare(y.id);
    return {
      activities: activities
        .sort((x, y) => byPlace(x, y))
        .map((a) => ({ id: a.id, title: a.title ?? '', depth: Number(a.depth), attempted: Number(a.attempted), completed: Number(a.completed), passed: Number(a.passed) })),
      questions: questions
        .sort((x, y) => byPlace(x, y, Number(x.ordinal) - Number(y.ordinal)))
        .map((q) =>
          questionAnalysis({
            id: q.id,
            description: q.description ?? '',
            type: q.type ?? '',
            answered: Number(q.answered),
            correct: Number(q.correct),
            latencyCount: Number(q.latency_count),
            latencySum: Number(q.latency_sum),
            wrong: wrong.get(q.question_key) ?? new Map<string, number>(),
          }),
        ),
    };
  }
}

/** Multi-row INSERTs of `rows`, INSERT_CHUNK a statement. */
export async function insertRows(m: EntityManager, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = rows.slice(i, i + INSERT_CHUNK);
    const row = `(${columns.map(() => '?').join(', ')})`;
    await m.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${chunk.map(() => row).join(', ')}`, chunk.flat());
  }
}
