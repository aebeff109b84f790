/**
 * What RegistrationStatistics answers, as plain types with no imports: the report viewer's pages (web/) read the
 * same definitions.
 */

export interface Totals {
  registrations: number;
  started: number;
  completed: number;
  passed: number;
  failed: number;
  averageScore: number | null;
  averageSeconds: number | null;
}

/** One registration as report tables show it (its latest instance's progress). */
export interface RegistrationRow {
  id: string;
  courseId: string;
  learnerId: string;
  learnerName: string;
  completion: string;
  success: string;
  score: number | null;
  seconds: number;
  created: string;
  firstAccess: string | null;
  lastAccess: string | null;
  completed: string | null;
}

export interface ActivityProgress {
  id: string;
  title: string;
  depth: number;
  attempted: number;
  completed: number;
  passed: number;
}

export interface QuestionAnalysis {
  id: string;
  description: string;
  type: string;
  answered: number;
  correct: number;
  wrongAnswers: Array<{ response: string; count: number }>;
  averageLatencySeconds: number | null;
}
