import { parseIsoDuration, parseScorm12Time } from './tracked-time';
import type { ActivityResult } from './registration-types';
import type { ActivityProgress, QuestionAnalysis } from './registration-statistics-types';

/** Wrong answers a question's analysis lists (the most chosen first). */
export const WRONG_ANSWERS_SHOWN = 5;

/** One activity's figures: how many registrations' trees hold it, attempted, completed and passed it. */
export interface ActivityFigures {
  id: string;
  title: string;
  depth: number;
  /** Its place in the tree (pre-order): the order the report lists activities in. */
  position: number;
  attempted: number;
  completed: number;
  passed: number;
}

/** One question (an interaction id of an activity): the learners' final answers. */
export interface QuestionFigures {
  activityId: string;
  id: string;
  description: string;
  type: string;
  /** Its activity's position, and its own among the activity's interactions: the order the report lists questions in. */
  position: number;
  ordinal: number;
  answered: number;
  correct: number;
  latencySum: number;
  latencyCount: number;
  /** Wrong final answers → how many gave them. */
  wrong: Map<string, number>;
}

/**
 * Progress per activity and the analysis of questions (runtime interactions) of the activity trees added to it: the
 * figures of the report's scan and of the counters (report_activity_day, report_question_day, report_answer_day),
 * which keep one tally per (course, day of creation) bucket.
 */
export class ActivityTally {
  readonly activities = new Map<string, ActivityFigures>();
  /** By `activity id \n interaction id`. */
  readonly questions = new Map<string, QuestionFigures>();

  add(tree: ActivityResult | null): void {
    if (!tree) return;
    let position = 0;
    const walk = (node: ActivityResult, depth: number) => {
      const at = position++;
      let a = this.activities.get(node.id);
      if (!a) this.activities.set(node.id, (a = { id: node.id, title: node.title, depth, position: at, attempted: 0, completed: 0, passed: 0 }));
      if (node.attempts > 0) a.attempted++;
      if (node.activityCompletion === 'COMPLETED') a.completed++;
      if (node.activitySuccess === 'PASSED') a.passed++;
      // The last record of an interaction id is the learner's final answer.
      const finalAnswers = new Map<string, Record<string, string | string[]>>();
      for (const it of node.runtime?.runtimeInteractions ?? []) if (typeof it.id === 'string' && it.id) finalAnswers.set(it.id, it);
      let ordinal = 0;
      for (const [id, it] of finalAnswers) {
        const key = `${node.id}\n${id}`;
        let q = this.questions.get(key);
        if (!q) this.questions.set(key, (q = { activityId: node.id, id, description: '', type: '', position: at, ordinal, answered: 0, correct: 0, latencySum: 0, latencyCount: 0, wrong: new Map() }));
        ordinal++;
        q.description ||= text(it.description);
        q.type ||= text(it.type);
        const response = text(it.learnerResponse ?? it.learner_response ?? it.student_response);
        const result = text(it.result).toLowerCase();
        q.answered++;
        if (result === 'correct') q.correct++;
        else if (result === 'incorrect' || result === 'wrong') q.wrong.set(response, (q.wrong.get(response) ?? 0) + 1);
        const latency = durationSeconds(text(it.latency));
        if (latency !== null) {
          q.latencySum += latency;
          q.latencyCount++;
        }
      }
      for (const c of node.children ?? []) walk(c, depth + 1);
    };
    walk(tree, 0);
  }

  /** The report's lists, in the order the activities and questions were first met. */
  analysis(): { activities: ActivityProgress[]; questions: QuestionAnalysis[] } {
    return {
      activities: [...this.activities.values()].map(({ id, title, depth, attempted, completed, passed }) => ({ id, title, depth, attempted, completed, passed })),
      questions: [...this.questions.values()].map(questionAnalysis),
    };
  }
}

/** A question's figures as the report shows them. */
export function questionAnalysis(q: Pick<QuestionFigures, 'id' | 'description' | 'type' | 'answered' | 'correct' | 'latencySum' | 'latencyCount' | 'wrong'>): QuestionAnalysis {
  return {
    id: q.id,
    description: q.description,
    type: q.type,
    answered: q.answered,
    correct: q.correct,
    wrongAnswers: [...q.wrong.entries()]
      .map(([response, count]) => ({ response, count }))
      .sort((a, b) => b.count - a.count || a.response.localeCompare(b.response))
      .slice(0, WRONG_ANSWERS_SHOWN),
    averageLatencySeconds: q.latencyCount ? q.latencySum / q.latencyCount : null,
  };
}

const text = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(',') : (v ?? ''));

/** The activity tree stored as JSON; null when there is none or it does not parse. */
export function parseTree(value: string | ActivityResult | null): ActivityResult | null {
  if (!value) return null;
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as ActivityResult;
  } catch {
    return null;
  }
}

/** Seconds of a SCORM 2004 duration (PT1M30S), a SCORM 1.2 timespan (0000:01:30.00) or a number; null otherwise. */
export function durationSeconds(value: string): number | null {
  if (!value) return null;
  if (value.startsWith('P')) return parseIsoDuration(value);
  if (value.includes(':')) return parseScorm12Time(value);
  return /^\d+(?:\.\d+)?$/.test(value) ? Number(value) : null;
}
