import { useState } from 'preact/hooks';
import type { ActivityProgress, QuestionAnalysis, RegistrationRow as RegistrationRowBase, Totals } from '../../../src/modules/registrations/registration-statistics-types';
import { api, type Activity, type Session } from '../shared/api';
import { BarChart, DataTable, Figures, Notice } from '../shared/components';
import { date, dateTime, duration, percent, score, status } from '../shared/format';
import { canOpen, PageLink, useReport, type Filters } from './router';

type RegistrationRow = RegistrationRowBase & { courseTitle?: string };
/** Rows a long table shows before "Show all" (the data requests answer up to 500; the CSV holds them all). */
const TABLE_LIMIT = 50;

const STANDARDS: Record<string, string> = {
  SCORM11: 'SCORM 1.1',
  SCORM12: 'SCORM 1.2',
  SCORM20043RDEDITION: 'SCORM 2004 3rd edition',
  SCORM20044THEDITION: 'SCORM 2004 4th edition',
  SCORM20042NDEDITION: 'SCORM 2004 2nd edition',
  AICC: 'AICC',
  XAPI: 'xAPI',
  CMI5: 'cmi5',
};
const standard = (s: string) => STANDARDS[s] ?? s;

const query = (f: Filters) => ({ from: f.from, to: f.to, courseId: f.courseId, learnerId: f.learnerId, tags: f.tags });

function Loading(props: { error: string | null }) {
  return props.error ? <Notice kind="error">{props.error}</Notice> : <Notice kind="info">Loading the report…</Notice>;
}

/** The filters of a page, in a form whose values go to the URL. */
function FilterForm(props: { filters: Filters; onFilters: (f: Filters) => void; fields: Array<'course' | 'learner'> }) {
  const [f, setF] = useState<Filters>(props.filters);
  const field = (key: keyof Filters, label: string, type: 'text' | 'date' = 'text', hint?: string) => (
    <div>
      <label for={`filter-${key}`}>{label}</label>
      {type === 'date' ? (
        <input id={`filter-${key}`} type="date" value={f[key] ?? ''} onInput={(e) => setF({ ...f, [key]: e.currentTarget.value || undefined })} />
      ) : (
        <input id={`filter-${key}`} type="text" value={f[key] ?? ''} placeholder={hint} onInput={(e) => setF({ ...f, [key]: e.currentTarget.value || undefined })} />
      )}
    </div>
  );
  return (
    <form
      class="filters card"
      aria-label="Filters"
      onSubmit={(e) => {
        e.preventDefault();
        props.onFilters(f);
      }}
    >
      {field('from', 'Created from', 'date')}
      {field('to', 'Created to', 'date')}
      {props.fields.includes('course') && field('courseId', 'Course id')}
      {props.fields.includes('learner') && field('learnerId', 'Learner id')}
      {field('tags', 'Registration tags', 'text', 'tag1, tag2')}
      <div class="actions">
        <button type="submit">Apply</button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setF({});
            props.onFilters({});
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}

function totalsFigures(t: Totals) {
  return [
    { label: 'Registrations', value: String(t.registrations), testId: 'registrations' },
    { label: 'Completion rate', value: percent(t.completed, t.registrations), testId: 'completion-rate' },
    { label: 'Pass rate', value: percent(t.passed, t.registrations), testId: 'pass-rate' },
    { label: 'Average score', value: score(t.averageScore), testId: 'average-score' },
    { label: 'Average time spent', value: duration(t.averageSeconds), testId: 'average-time' },
  ];
}

function registrationColumns(session: Session, filters: Filters, show: { course: boolean; learner: boolean }) {
  return [
    { header: 'Registration', cell: (r: RegistrationRow) => <PageLink session={session} page={{ kind: 'registration', id: r.id }} ancestry={r}>{r.id}</PageLink>, csv: (r: RegistrationRow) => r.id },
    ...(show.course ? [{ header: 'Course', cell: (r: RegistrationRow) => <PageLink session={session} page={{ kind: 'course', id: r.courseId }} filters={filters}>{r.courseTitle ?? r.courseId}</PageLink>, csv: (r: RegistrationRow) => r.courseId }] : []),
    ...(show.learner
      ? [{ header: 'Learner', cell: (r: RegistrationRow) => <PageLink session={session} page={{ kind: 'learner', id: r.learnerId }} filters={filters}>{r.learnerName ? `${r.learnerName} (${r.learnerId})` : r.learnerId}</PageLink>, csv: (r: RegistrationRow) => r.learnerId }]
      : []),
    { header: 'Completion', cell: (r: RegistrationRow) => status(r.completion) },
    { header: 'Success', cell: (r: RegistrationRow) => status(r.success) },
    { header: 'Score', cell: (r: RegistrationRow) => score(r.score), numeric: true },
    { header: 'Time spent', cell: (r: RegistrationRow) => duration(r.seconds), csv: (r: RegistrationRow) => Math.round(r.seconds), numeric: true },
    { header: 'Created', cell: (r: RegistrationRow) => date(r.created), csv: (r: RegistrationRow) => r.created },
    { header: 'Last access', cell: (r: RegistrationRow) => date(r.lastAccess), csv: (r: RegistrationRow) => r.lastAccess ?? '' },
    { header: 'Completed', cell: (r: RegistrationRow) => date(r.completed), csv: (r: RegistrationRow) => r.completed ?? '' },
  ];
}

// ---- application ------------------------------------------------------------------------------------------

interface ApplicationData {
  totals: Totals;
  perDay: Array<{ day: string; created: number; completed: number }>;
  courses: Array<{ courseId: string; title: string; registrations: number; completed: number; passed: number; completionRate: number }>;
}

export function ApplicationReport(props: { session: Session; filters: Filters; onFilters: (f: Filters) => void }) {
  const { session, filters } = props;
  const { data, error } = useReport(() => api<ApplicationData>(session, '/lcds/reports/application', { query: query(filters) }), [JSON.stringify(filters), session.token]);
  const courseColumns = [
    { header: 'Course', cell: (c: ApplicationData['courses'][number]) => <PageLink session={session} page={{ kind: 'course', id: c.courseId }} filters={{ ...filters, courseId: undefined }}>{c.title}</PageLink>, csv: (c: ApplicationData['courses'][number]) => c.title },
    { header: 'Course id', cell: (c: ApplicationData['courses'][number]) => c.courseId },
    { header: 'Registrations', cell: (c: ApplicationData['courses'][number]) => c.registrations, numeric: true },
    { header: 'Completed', cell: (c: ApplicationData['courses'][number]) => c.completed, numeric: true },
    { header: 'Completion rate', cell: (c: ApplicationData['courses'][number]) => percent(c.completed, c.registrations), numeric: true },
    { header: 'Passed', cell: (c: ApplicationData['courses'][number]) => c.passed, numeric: true },
  ];
  const shortColumns = [courseColumns[0], courseColumns[2], courseColumns[4]];
  return (
    <>
      <h1>Application overview</h1>
      <p class="subtitle">Application {session.appId}</p>
      <FilterForm filters={filters} onFilters={props.onFilters} fields={['course', 'learner']} />
      {!data ? (
        <Loading error={error} />
      ) : (
        <>
          <Figures items={totalsFigures(data.totals)} />
          <h2>Over time</h2>
          <BarChart
            id="per-day"
            title="Registrations created and completed per day"
            labels={data.perDay.map((d) => d.day)}
            series={[
              { name: 'Created', values: data.perDay.map((d) => d.created), tone: 'a' },
              { name: 'Completed', values: data.perDay.map((d) => d.completed), tone: 'b' },
            ]}
          />
          <div class="grid">
            <div>
              <h2>Most completed courses</h2>
              <DataTable caption="Most completed courses" file="most-completed-courses" columns={shortColumns} rows={data.courses.slice(0, 5)} />
            </div>
            <div>
              <h2>Least completed courses</h2>
              <DataTable caption="Least completed courses" file="least-completed-courses" columns={shortColumns} rows={[...data.courses].reverse().slice(0, 5)} />
            </div>
          </div>
          <h2>All courses</h2>
          <DataTable caption="Courses" file="courses" columns={courseColumns} rows={data.courses} limit={TABLE_LIMIT} />
        </>
      )}
    </>
  );
}

// ---- course -----------------------------------------------------------------------------------------------

interface CourseData {
  course: { id: string; title: string; learningStandard: string };
  totals: Totals;
  scores: number[];
  times: { bounds: number[]; counts: number[] };
  activities: ActivityProgress[];
  questions: QuestionAnalysis[];
  sampled: number;
  registrations: RegistrationRow[];
}

function timeLabel(bounds: number[], k: number): string {
  const m = (s: number) => (s >= 3600 ? `${s / 3600} h` : `${s / 60} min`);
  return k === bounds.length - 1 ? `${m(bounds[k])}+` : k === 0 ? `< ${m(bounds[1])}` : `${m(bounds[k])}–${m(bounds[k + 1])}`;
}

export function CourseReport(props: { session: Session; courseId: string; filters: Filters; onFilters: (f: Filters) => void }) {
  const { session, filters, courseId } = props;
  const { data, error } = useReport(() => api<CourseData>(session, `/lcds/reports/courses/${encodeURIComponent(courseId)}`, { query: query(filters) }), [courseId, JSON.stringify(filters), session.token]);
  if (!data) return <Loading error={error} />;
  const t = data.totals;
  const inProgress = t.started - t.completed;
  type Q = CourseData['questions'][number];
  type A = CourseData['activities'][number];
  return (
    <>
      <nav class="crumbs" aria-label="Breadcrumbs">
        <PageLink session={session} page={{ kind: 'application' }} filters={filters}>Application overview</PageLink>
        <span>Course</span>
      </nav>
      <h1>{data.course.title}</h1>
      <p class="subtitle">
        Course {data.course.id} · {standard(data.course.learningStandard)}
      </p>
      <FilterForm filters={filters} onFilters={props.onFilters} fields={['learner']} />
      <Figures items={totalsFigures(t)} />
      <h2>Completion funnel</h2>
      <div class="grid">
        <BarChart
          id="funnel"
          title="Completion funnel"
          labels={['Registered', 'Started', 'Completed', 'Passed']}
          series={[{ name: 'Registrations', values: [t.registrations, t.started, t.completed, t.passed], tone: 'a' }]}
        />
        <Figures
          compact
          items={[
            { label: 'Not started', value: String(t.registrations - t.started), testId: 'funnel-not-started' },
            { label: 'In progress', value: String(inProgress), testId: 'funnel-in-progress' },
            { label: 'Completed', value: String(t.completed), testId: 'funnel-completed' },
            { label: 'Passed', value: String(t.passed), testId: 'funnel-passed' },
          ]}
        />
      </div>
      <div class="grid">
        <div>
          <h2>Scores</h2>
          <BarChart id="scores" title="Score distribution (registrations per 10 points)" labels={data.scores.map((_, k) => (k === 9 ? '90–100' : `${k * 10}–${k * 10 + 9}`))} series={[{ name: 'Registrations', values: data.scores, tone: 'b' }]} />
        </div>
        <div>
          <h2>Time spent</h2>
          <BarChart id="times" title="Time spent (registrations)" labels={data.times.bounds.map((_, k) => timeLabel(data.times.bounds, k))} series={[{ name: 'Registrations', values: data.times.counts, tone: 'c' }]} />
        </div>
      </div>
      <h2>Progress per activity</h2>
      <DataTable<A>
        caption="Progress per activity"
        file={`activities-${data.course.id}`}
        columns={[
          { header: 'Activity', cell: (a) => <span style={{ paddingLeft: `${a.depth * 1.1}rem` }}>{a.title}</span>, csv: (a) => a.title },
          { header: 'Id', cell: (a) => a.id },
          { header: 'Attempted', cell: (a) => a.attempted, numeric: true },
          { header: 'Completed', cell: (a) => a.completed, numeric: true },
          { header: 'Passed', cell: (a) => a.passed, numeric: true },
        ]}
        rows={data.activities}
      />
      <h2>Question analysis</h2>
      <p class="subtitle">From the runtime interactions of {data.sampled} registration(s): each learner's last answer to each question.</p>
      <DataTable<Q>
        caption="Question analysis"
        file={`questions-${data.course.id}`}
        empty="No learner has answered a question yet."
        columns={[
          { header: 'Question', cell: (q) => q.id },
          { header: 'Description', cell: (q) => q.description },
          { header: 'Type', cell: (q) => q.type },
          { header: 'Answered', cell: (q) => q.answered, numeric: true },
          { header: '% correct', cell: (q) => percent(q.correct, q.answered), numeric: true },
          { header: 'Most chosen wrong answers', cell: (q) => q.wrongAnswers.map((w) => `${w.response} (${w.count})`).join(', ') || '—' },
          { header: 'Average latency', cell: (q) => duration(q.averageLatencySeconds), csv: (q) => (q.averageLatencySeconds === null ? '' : Math.round(q.averageLatencySeconds * 10) / 10), numeric: true },
        ]}
        rows={data.questions}
      />
      <h2>Registrations</h2>
      <DataTable caption="Registrations of the course" file={`registrations-${data.course.id}`} columns={registrationColumns(session, filters, { course: false, learner: true })} rows={data.registrations} limit={TABLE_LIMIT} />
    </>
  );
}

// ---- learner ----------------------------------------------------------------------------------------------

export function LearnerReport(props: { session: Session; learnerId: string; filters: Filters; onFilters: (f: Filters) => void }) {
  const { session, filters, learnerId } = props;
  const { data, error } = useReport(
    () => api<{ learner: { id: string; name: string }; registrations: RegistrationRow[] }>(session, `/lcds/reports/learners/${encodeURIComponent(learnerId)}`, { query: query(filters) }),
    [learnerId, JSON.stringify(filters), session.token],
  );
  if (!data) return <Loading error={error} />;
  return (
    <>
      <nav class="crumbs" aria-label="Breadcrumbs">
        <PageLink session={session} page={{ kind: 'application' }} filters={filters}>Application overview</PageLink>
        <span>Learner</span>
      </nav>
      <h1>{data.learner.name || data.learner.id}</h1>
      <p class="subtitle">Learner {data.learner.id}</p>
      <FilterForm filters={filters} onFilters={props.onFilters} fields={['course']} />
      <DataTable caption="Registrations of the learner" file={`learner-${data.learner.id}`} columns={registrationColumns(session, filters, { course: true, learner: false })} rows={data.registrations} limit={TABLE_LIMIT} />
    </>
  );
}

// ---- registration -----------------------------------------------------------------------------------------

/** A registration or one of its instances (attempts), as RegistrationSchema has it. */
interface Attempt {
  id: string;
  course: { id: string; title: string; version: number };
  learner: { id: string; firstName?: string; lastName?: string };
  registrationCompletion: string;
  registrationSuccess: string;
  score?: { scaled: number };
  totalSecondsTracked: number;
  firstAccessDate?: string;
  lastAccessDate?: string;
  completedDate?: string;
  createdDate: string;
  instance: number;
  activityDetails?: Activity;
}

interface RegistrationData {
  registration: Attempt;
  /** Every instance, newest first. */
  attempts: Attempt[];
  moreAttempts: boolean;
  launchHistory: Array<{ id: string; instance: number; launchTime: string; exitTime?: string; completionStatus: string; successStatus: string; totalSecondsTracked: number; score?: { scaled: number } }>;
  statements: Array<{ id: string; timestamp?: string; actor?: { name?: string }; verb?: { id: string; display?: Record<string, string> }; objectActivity?: { id: string } }>;
  moreStatements: boolean;
}

const pill = (v: string) => <span class={`pill ${v === 'COMPLETED' || v === 'PASSED' ? 'good' : v === 'FAILED' ? 'bad' : ''}`}>{status(v)}</span>;

/** What the content itself reported (the runtime data model), when it reported anything. */
function runtimeLine(n: Activity) {
  const r = n.runtime;
  if (!r) return null;
  const parts = [
    r.completionStatus && r.completionStatus !== 'unknown' ? `status ${r.completionStatus}` : '',
    r.scoreScaled ? `score ${r.scoreScaled}` : '',
    r.totalTime ? `total time ${r.totalTime}` : '',
    r.location ? `location ${r.location}` : '',
  ].filter(Boolean);
  return parts.length ? <div class="runtime">Content reported: {parts.join(' · ')}</div> : null;
}

function Tree(props: { node: Activity }) {
  const n = props.node;
  const interactions = n.runtime?.runtimeInteractions ?? [];
  return (
    <li>
      <div class="node">
        <strong>{n.title}</strong>
        {pill(n.activityCompletion)}
        {pill(n.activitySuccess)}
        <span>score {score(n.score?.scaled)}</span>
        <span>time {n.timeTracked ?? '—'}</span>
        <span>attempts {n.attempts}</span>
      </div>
      {runtimeLine(n)}
      {interactions.length > 0 && (
        <details>
          <summary>Runtime data: {interactions.length} interaction(s)</summary>
          <table>
            <caption class="visually-hidden">Interactions of {n.title}</caption>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Response</th>
                <th scope="col">Result</th>
                <th scope="col">Latency</th>
              </tr>
            </thead>
            <tbody>
              {interactions.map((i) => (
                <tr>
                  <td>{i.id}</td>
                  <td>{i.learnerResponse ?? i.learner_response ?? i.student_response ?? ''}</td>
                  <td>{i.result ?? ''}</td>
                  <td>{i.latency ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
      {(n.children ?? []).length > 0 && (
        <ul class="tree">
          {n.children!.map((c) => (
            <Tree node={c} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function RegistrationReport(props: { session: Session; registrationId: string; filters: Filters; onFilters: (f: Filters) => void }) {
  const { session, registrationId, filters, onFilters } = props;
  const { data, error } = useReport(() => api<RegistrationData>(session, `/lcds/reports/registrations/${encodeURIComponent(registrationId)}`), [registrationId, session.token]);
  if (!data) return <Loading error={error} />;
  const r = data.registration;
  const learnerName = [r.learner.firstName, r.learner.lastName].filter(Boolean).join(' ');
  // The attempt whose activities show (in the URL, `attempt`): the latest unless another is chosen.
  const attempts = data.attempts.length ? data.attempts : [r];
  const shown = attempts.find((a) => String(a.instance) === filters.attempt) ?? attempts.find((a) => a.instance === r.instance) ?? attempts[0];
  const latest = Math.max(...attempts.map((a) => a.instance));
  const attemptName = (a: Attempt) => `Attempt ${a.instance + 1}${a.instance === latest ? ' (latest)' : ''}`;
  type A = Attempt;
  type L = RegistrationData['launchHistory'][number];
  type S = RegistrationData['statements'][number];
  return (
    <>
      <nav class="crumbs" aria-label="Breadcrumbs">
        {canOpen(session, { kind: 'application' }) && <PageLink session={session} page={{ kind: 'application' }}>Application overview</PageLink>}
        {canOpen(session, { kind: 'course', id: r.course.id }) && <PageLink session={session} page={{ kind: 'course', id: r.course.id }}>{r.course.title}</PageLink>}
        {canOpen(session, { kind: 'learner', id: r.learner.id }) && <PageLink session={session} page={{ kind: 'learner', id: r.learner.id }}>{learnerName || r.learner.id}</PageLink>}
        <span>Registration</span>
      </nav>
      <h1>Registration {r.id}</h1>
      <p class="subtitle">
        {r.course.title} (version {r.course.version}) · {learnerName ? `${learnerName} (${r.learner.id})` : r.learner.id} · instance {r.instance}
      </p>
      <Figures
        items={[
          { label: 'Completion', value: status(r.registrationCompletion), testId: 'completion' },
          { label: 'Success', value: status(r.registrationSuccess), testId: 'success' },
          { label: 'Score', value: score(r.score?.scaled) },
          { label: 'Time spent', value: duration(r.totalSecondsTracked) },
          { label: 'Created', value: date(r.createdDate) },
          { label: 'Last access', value: date(r.lastAccessDate) },
        ]}
      />
      <h2>Attempts</h2>
      <DataTable<A>
        caption={data.moreAttempts ? `Attempts (instances) of the registration: the first ${attempts.length}` : 'Attempts (instances) of the registration'}
        file={`attempts-${r.id}`}
        columns={[
          { header: 'Attempt', cell: (a) => attemptName(a), csv: (a) => a.instance + 1 },
          { header: 'Instance', cell: (a) => a.instance, numeric: true },
          { header: 'Course version', cell: (a) => a.course.version, numeric: true },
          { header: 'Completion', cell: (a) => status(a.registrationCompletion) },
          { header: 'Success', cell: (a) => status(a.registrationSuccess) },
          { header: 'Score', cell: (a) => score(a.score?.scaled), numeric: true },
          { header: 'Time spent', cell: (a) => duration(a.totalSecondsTracked), csv: (a) => a.totalSecondsTracked, numeric: true },
          { header: 'First access', cell: (a) => dateTime(a.firstAccessDate), csv: (a) => a.firstAccessDate ?? '' },
          { header: 'Completed', cell: (a) => dateTime(a.completedDate), csv: (a) => a.completedDate ?? '' },
        ]}
        rows={attempts}
      />
      <h2 id="activities">Activities and runtime data: {attemptName(shown)}</h2>
      {attempts.length > 1 && (
        <p class="attempt-picker">
          <label for="attempt">Attempt shown</label>{' '}
          <select id="attempt" aria-describedby="activities" value={String(shown.instance)} onChange={(e) => onFilters({ ...filters, attempt: (e.target as HTMLSelectElement).value })}>
            {attempts.map((a) => (
              <option value={String(a.instance)}>{attemptName(a)}</option>
            ))}
          </select>
        </p>
      )}
      <Figures
        items={[
          { label: 'Completion', value: status(shown.registrationCompletion), testId: 'attempt-completion' },
          { label: 'Success', value: status(shown.registrationSuccess), testId: 'attempt-success' },
          { label: 'Score', value: score(shown.score?.scaled), testId: 'attempt-score' },
          { label: 'Time spent', value: duration(shown.totalSecondsTracked), testId: 'attempt-time' },
        ]}
      />
      <div class="card">{shown.activityDetails ? <ul class="tree">{<Tree node={shown.activityDetails} />}</ul> : <p>No activity data.</p>}</div>
      <h2>Launch history</h2>
      <DataTable<L>
        caption="Launch history"
        file={`launches-${r.id}`}
        empty="The learner has not launched this registration."
        columns={[
          { header: 'Launched', cell: (l) => dateTime(l.launchTime), csv: (l) => l.launchTime },
          { header: 'Exited', cell: (l) => dateTime(l.exitTime), csv: (l) => l.exitTime ?? '' },
          { header: 'Instance', cell: (l) => l.instance, numeric: true },
          { header: 'Completion', cell: (l) => status(l.completionStatus) },
          { header: 'Success', cell: (l) => status(l.successStatus) },
          { header: 'Score', cell: (l) => score(l.score?.scaled), numeric: true },
          { header: 'Time tracked', cell: (l) => duration(l.totalSecondsTracked), csv: (l) => l.totalSecondsTracked, numeric: true },
        ]}
        rows={data.launchHistory}
      />
      <h2>xAPI statements</h2>
      <DataTable<S>
        caption={data.moreStatements ? 'xAPI statements (the first page)' : 'xAPI statements'}
        file={`statements-${r.id}`}
        empty="No xAPI statement has been recorded for this registration."
        columns={[
          { header: 'Timestamp', cell: (s) => dateTime(s.timestamp), csv: (s) => s.timestamp ?? '' },
          { header: 'Verb', cell: (s) => s.verb?.display?.['en-US'] ?? s.verb?.id ?? '' },
          { header: 'Object', cell: (s) => s.objectActivity?.id ?? '' },
          { header: 'Statement id', cell: (s) => s.id },
        ]}
        rows={data.statements}
      />
    </>
  );
}
