import { useEffect, useState } from 'preact/hooks';
import { api, apiBase, ApiError, type Session } from '../shared/api';
import { DataTable, Figures, Notice } from '../shared/components';
import { date, dateTime, duration, percent, score, status } from '../shared/format';
import { ProgressPanel, VersionsPanel } from './details';
import { go, reportUrl } from './nav';

/** Loads data for a section; `reload` fetches again after an action (its promise settles once the page shows it). */
export function useData<T>(load: () => Promise<T>, deps: unknown[]): { data: T | null; error: string | null; reload: () => Promise<void> } {
  const [state, setState] = useState<{ data: T | null; error: string | null }>({ data: null, error: null });
  const fetchNow = () =>
    load().then(
      (data) => ({ data, error: null }),
      (err: unknown) => ({ data: null, error: err instanceof Error ? err.message : String(err) }),
    );
  useEffect(() => {
    let live = true;
    void fetchNow().then((next) => live && setState(next));
    return () => {
      live = false;
    };
  }, deps);
  return { ...state, reload: async () => setState(await fetchNow()) };
}

/** What an action on a row said: its success message or the service's error. */
export function useActions() {
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const act = async (what: () => Promise<string>) => {
    setError(null);
    try {
      setMessage(await what());
    } catch (err) {
      setError(errorText(err));
    }
  };
  return { message, error, act };
}

/** A row's action button; `confirm` asks first (destructive actions). */
export function ActionButton(props: { label: string; name: string; tone: 'secondary' | 'danger'; confirm?: string; act: (what: () => Promise<string>) => Promise<void>; run: () => Promise<string> }) {
  return (
    <button type="button" class={props.tone} aria-label={props.name} onClick={() => (!props.confirm || confirm(props.confirm)) && void props.act(props.run)}>
      {props.label}
    </button>
  );
}

const errorText = (err: unknown) => (err instanceof ApiError || err instanceof Error ? err.message : String(err));

export function Status(props: { error: string | null; message: string | null }) {
  if (props.error) return <Notice kind="error">{props.error}</Notice>;
  return props.message ? <Notice kind="info">{props.message}</Notice> : null;
}

// ---- overview ---------------------------------------------------------------------------------------------

interface AccountInfo {
  email?: string;
  company?: string;
  regLimit?: number;
  strictLimit: boolean;
  createDate: string;
  usage: { monthStart: string; regCount: number; totalRegistrations: number; totalCourses: number };
}

export function OverviewSection(props: { session: Session }) {
  const { data, error } = useData(() => api<AccountInfo>(props.session, '/reporting/accountInfo'), [props.session.token]);
  return (
    <>
      <h1>Overview</h1>
      <p class="subtitle">Application {props.session.appId}</p>
      {!data ? (
        <Status error={error} message="Loading…" />
      ) : (
        <>
          <Figures
            items={[
              { label: 'Courses', value: String(data.usage.totalCourses), testId: 'courses' },
              { label: 'Registrations', value: String(data.usage.totalRegistrations), testId: 'registrations' },
              { label: 'Registrations this month', value: data.regLimit !== undefined ? `${data.usage.regCount} of ${data.regLimit}` : String(data.usage.regCount), testId: 'month' },
              { label: 'Created', value: date(data.createDate) },
            ]}
          />
          <p>
            {data.regLimit !== undefined
              ? `Registration limit: ${data.regLimit} per month${data.strictLimit ? '; past it, new registrations are refused' : ' (reported only)'}.`
              : 'No registration limit.'}{' '}
            {data.email ? `Contact: ${data.email}${data.company ? `, ${data.company}` : ''}.` : ''}
          </p>
          <p>
            <a href={reportUrl('')}>Open the reports of this application</a>
          </p>
        </>
      )}
      {props.session.isManagement && <AccountForm session={props.session} />}
    </>
  );
}

interface Account {
  appId: string;
  regLimit: number | null;
  strictLimit: boolean;
  email: string | null;
  company: string | null;
}

/** A management application sets an application's registration limit and contact (LCDS's own operation). */
function AccountForm(props: { session: Session }) {
  const [appId, setAppId] = useState('');
  const [account, setAccount] = useState<Account | null>(null);
  const [limit, setLimit] = useState('');
  const { message, error, act } = useActions();
  const path = () => `/lcds/applications/${encodeURIComponent(appId.trim())}/account`;
  const load = () =>
    act(async () => {
      const a = await api<Account>(props.session, path());
      setAccount(a);
      setLimit(a.regLimit === null ? '' : String(a.regLimit));
      return `Account of ${a.appId} loaded.`;
    });
  const save = (e: Event) => {
    e.preventDefault();
    if (!account) return;
    void act(async () => {
      const regLimit = limit.trim() === '' ? null : Number(limit);
      await api(props.session, path(), { method: 'PUT', body: { regLimit, strictLimit: account.strictLimit, email: account.email || null, company: account.company || null } });
      return `Account of ${account.appId} saved.`;
    });
  };
  return (
    <form class="card" onSubmit={save} aria-labelledby="account-title">
      <h2 id="account-title">Registration limit and contact of an application</h2>
      <div class="filters">
        <div>
          <label for="account-app">Application id</label>
          <input id="account-app" value={appId} onInput={(e) => setAppId(e.currentTarget.value)} />
        </div>
        <div class="actions">
          <button type="button" class="secondary" disabled={!appId.trim()} onClick={() => void load()}>
            Load
          </button>
        </div>
      </div>
      {account && (
        <div class="filters">
          <div>
            <label for="account-limit">Registrations per month (empty: no limit)</label>
            <input id="account-limit" inputMode="numeric" value={limit} onInput={(e) => setLimit(e.currentTarget.value)} />
          </div>
          <div>
            <label for="account-strict">
              <input id="account-strict" type="checkbox" checked={account.strictLimit} onChange={(e) => setAccount({ ...account, strictLimit: e.currentTarget.checked })} /> Refuse registrations past the limit
            </label>
          </div>
          <div>
            <label for="account-email">Contact e-mail</label>
            <input id="account-email" type="email" value={account.email ?? ''} onInput={(e) => setAccount({ ...account, email: e.currentTarget.value })} />
          </div>
          <div>
            <label for="account-company">Company</label>
            <input id="account-company" value={account.company ?? ''} onInput={(e) => setAccount({ ...account, company: e.currentTarget.value })} />
          </div>
          <div class="actions">
            <button type="submit">Save</button>
          </div>
        </div>
      )}
      <Status error={error} message={message} />
    </form>
  );
}

// ---- courses ----------------------------------------------------------------------------------------------

interface CourseRow {
  id: string;
  title: string;
  version: number;
  courseLearningStandard: string;
  registrationCount?: number;
  updated: string;
}

interface ImportJob {
  jobId: string;
  status: 'RUNNING' | 'COMPLETE' | 'ERROR';
  message?: string;
  progress?: number;
}

/** Uploads a package with the browser's upload progress, then follows the import job's progress. */
function UploadForm(props: { session: Session; onImported: () => Promise<void> }) {
  const [courseId, setCourseId] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [sent, setSent] = useState<number | null>(null);
  const [job, setJob] = useState<ImportJob | null>(null);
  const [error, setError] = useState<string | null>(null);
  const upload = (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setError(null);
    setJob(null);
    setSent(0);
    const form = new FormData();
    form.append('file', file, file.name);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${apiBase}/courses/importJobs/upload?${new URLSearchParams({ courseId: courseId.trim(), mayCreateNewVersion: 'true' })}`);
    xhr.setRequestHeader('authorization', `Bearer ${props.session.token}`);
    xhr.upload.onprogress = (ev) => ev.lengthComputable && setSent(Math.round((ev.loaded / ev.total) * 100));
    xhr.onerror = () => setError('The upload failed: the connection to the service broke.');
    xhr.onload = () => {
      let body: { result?: string; message?: string } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        // not JSON
      }
      if (xhr.status !== 200 || !body.result) {
        setError(body.message ?? `The upload failed (${xhr.status}).`);
        return;
      }
      setSent(100);
      void follow(body.result);
    };
    xhr.send(form);
  };
  const follow = async (jobId: string) => {
    for (;;) {
      try {
        const j = await api<ImportJob>(props.session, `/courses/importJobs/${encodeURIComponent(jobId)}`);
        setJob(j);
        if (j.status !== 'RUNNING') {
          if (j.status === 'COMPLETE') void props.onImported();
          return;
        }
      } catch (err) {
        setError(errorText(err));
        return;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  return (
    <form class="card" onSubmit={upload} aria-labelledby="upload-title">
      <h2 id="upload-title">Upload a course</h2>
      <div class="grid">
        <div>
          <label for="upload-course-id">Course id</label>
          <input id="upload-course-id" required value={courseId} onInput={(e) => setCourseId(e.currentTarget.value)} />
        </div>
        <div>
          <label for="upload-file">Package (.zip, or a PDF/media file)</label>
          <input id="upload-file" type="file" required onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        </div>
      </div>
      <p>
        <button type="submit" disabled={!file || !courseId.trim() || (sent !== null && sent < 100 && !error)}>
          Upload and import
        </button>
      </p>
      {sent !== null && (
        <div>
          <label for="upload-progress">Upload: {sent}%</label>
          <progress id="upload-progress" class="progress" max={100} value={sent} />
        </div>
      )}
      {job && (
        <div>
          <label for="import-progress">
            Import: {job.status === 'RUNNING' ? `running (${job.progress ?? 0}%)` : job.status === 'COMPLETE' ? 'complete' : 'failed'}
          </label>
          <progress id="import-progress" class="progress" max={100} value={job.status === 'RUNNING' ? (job.progress ?? 0) : 100} />
          <p role="status">{job.status === 'COMPLETE' ? `Course ${courseId} is imported.` : job.status === 'ERROR' ? `The import failed: ${job.message ?? ''}` : ''}</p>
        </div>
      )}
      {error && <Notice kind="error">{error}</Notice>}
    </form>
  );
}

export function CoursesSection(props: { session: Session; query: URLSearchParams }) {
  const { session } = props;
  const versionsOf = props.query.get('versions') ?? '';
  const { data, error, reload } = useData(() => api<{ courses: CourseRow[] }>(session, '/courses', { query: { includeRegistrationCount: 'true' } }), [session.token]);
  const { message, error: actionError, act } = useActions();
  return (
    <>
      <h1>Courses</h1>
      <UploadForm session={session} onImported={reload} />
      <Status error={actionError ?? error} message={message} />
      {data && (
        <DataTable<CourseRow>
          caption="Courses"
          file="courses"
          empty="No course yet: upload one above."
          columns={[
            { header: 'Title', cell: (c) => c.title },
            { header: 'Id', cell: (c) => c.id },
            { header: 'Standard', cell: (c) => c.courseLearningStandard },
            { header: 'Version', cell: (c) => c.version, numeric: true },
            { header: 'Registrations', cell: (c) => c.registrationCount ?? 0, numeric: true },
            { header: 'Updated', cell: (c) => date(c.updated), csv: (c) => c.updated },
            {
              header: 'Actions',
              csv: () => '',
              cell: (c) => (
                <span class="actions-cell">
                  <a href={reportUrl(`courses/${encodeURIComponent(c.id)}`)}>Report</a>{' '}
                  <a
                    href={`courses?versions=${encodeURIComponent(c.id)}`}
                    aria-label={`Versions of ${c.id}`}
                    onClick={(e) => {
                      e.preventDefault();
                      go('courses', { versions: c.id });
                    }}
                  >
                    Versions
                  </a>{' '}
                  <a
                    href={`settings?level=course&id=${encodeURIComponent(c.id)}`}
                    onClick={(e) => {
                      e.preventDefault();
                      go('settings', { level: 'course', id: c.id });
                    }}
                  >
                    Settings
                  </a>{' '}
                  <a
                    href={`registrations?courseId=${encodeURIComponent(c.id)}`}
                    onClick={(e) => {
                      e.preventDefault();
                      go('registrations', { courseId: c.id });
                    }}
                  >
                    Registrations
                  </a>{' '}
                  <ActionButton label="Preview" name={`Preview ${c.title}`} tone="secondary" act={act} run={async () => {
                        const { launchLink } = await api<{ launchLink: string }>(session, `/courses/${encodeURIComponent(c.id)}/preview`, { method: 'POST', body: { redirectOnExitUrl: 'message' } });
                        window.open(launchLink, '_blank', 'noopener');
                        return `Preview of ${c.title} opened in a new tab.`;
                      }} />{' '}
                  <ActionButton label="Delete" name={`Delete ${c.title}`} tone="danger" confirm={`Delete the course ${c.id} and all its registrations?`} act={act} run={async () => {
                        await api(session, `/courses/${encodeURIComponent(c.id)}`, { method: 'DELETE' });
                        await reload();
                        return `Course ${c.id} deleted.`;
                      }} />
                </span>
              ),
            },
          ]}
          rows={data.courses}
        />
      )}
      {versionsOf && <VersionsPanel session={session} courseId={versionsOf} onChanged={reload} />}
    </>
  );
}

// ---- registrations ----------------------------------------------------------------------------------------

interface RegistrationView {
  id: string;
  course: { id: string; title: string };
  learner: { id: string; firstName?: string; lastName?: string };
  registrationCompletion: string;
  registrationSuccess: string;
  score?: { scaled: number };
  totalSecondsTracked: number;
  createdDate: string;
  lastAccessDate?: string;
}

export function RegistrationsSection(props: { session: Session; query: URLSearchParams }) {
  const { session } = props;
  const courseId = props.query.get('courseId') ?? '';
  const learnerId = props.query.get('learnerId') ?? '';
  const progressOf = props.query.get('progress') ?? '';
  const [form, setForm] = useState({ courseId, learnerId });
  const { data, error, reload } = useData(
    () => api<{ registrations: RegistrationView[] }>(session, '/registrations', { query: { courseId: courseId || undefined, learnerId: learnerId || undefined } }),
    [session.token, courseId, learnerId],
  );
  const { message, error: actionError, act } = useActions();
  return (
    <>
      <h1>Registrations</h1>
      <form
        class="filters card"
        aria-label="Search registrations"
        onSubmit={(e) => {
          e.preventDefault();
          go('registrations', form);
        }}
      >
        <div>
          <label for="reg-course">Course id</label>
          <input id="reg-course" value={form.courseId} onInput={(e) => setForm({ ...form, courseId: e.currentTarget.value })} />
        </div>
        <div>
          <label for="reg-learner">Learner id</label>
          <input id="reg-learner" value={form.learnerId} onInput={(e) => setForm({ ...form, learnerId: e.currentTarget.value })} />
        </div>
        <div class="actions">
          <button type="submit">Search</button>
        </div>
      </form>
      <Status error={actionError ?? error} message={message} />
      {progressOf && <ProgressPanel session={session} registrationId={progressOf} close={() => go('registrations', { courseId, learnerId })} />}
      {data && (
        <DataTable<RegistrationView>
          caption="Registrations"
          file="registrations"
          columns={[
            { header: 'Registration', cell: (r) => <a href={reportUrl(`registrations/${encodeURIComponent(r.id)}`)}>{r.id}</a>, csv: (r) => r.id },
            { header: 'Course', cell: (r) => <a href={reportUrl(`courses/${encodeURIComponent(r.course.id)}`)}>{r.course.title}</a>, csv: (r) => r.course.id },
            { header: 'Learner', cell: (r) => <a href={reportUrl(`learners/${encodeURIComponent(r.learner.id)}`)}>{r.learner.id}</a>, csv: (r) => r.learner.id },
            { header: 'Completion', cell: (r) => status(r.registrationCompletion) },
            { header: 'Success', cell: (r) => status(r.registrationSuccess) },
            { header: 'Score', cell: (r) => score(r.score?.scaled), numeric: true },
            { header: 'Time', cell: (r) => duration(r.totalSecondsTracked), csv: (r) => r.totalSecondsTracked, numeric: true },
            { header: 'Last access', cell: (r) => dateTime(r.lastAccessDate), csv: (r) => r.lastAccessDate ?? '' },
            {
              header: 'Actions',
              csv: () => '',
              cell: (r) => (
                <span class="actions-cell">
                  <button type="button" class="secondary" aria-label={`Progress of ${r.id}`} aria-expanded={progressOf === r.id} onClick={() => go('registrations', { courseId, learnerId, progress: r.id })}>
                    Progress
                  </button>{' '}
                  <ActionButton label="Launch" name={`Launch ${r.id} as the learner`} tone="secondary" act={act} run={async () => {
                        const { launchLink } = await api<{ launchLink: string }>(session, `/registrations/${encodeURIComponent(r.id)}/launchLink`, { method: 'POST', body: { redirectOnExitUrl: 'message' } });
                        window.open(launchLink, '_blank', 'noopener');
                        return `Launched ${r.id} as ${r.learner.id} in a new tab.`;
                      }} />{' '}
                  <ActionButton label="Reset" name={`Reset the progress of ${r.id}`} tone="secondary" confirm={`Reset the progress of ${r.id}?`} act={act} run={async () => {
                        await api(session, `/registrations/${encodeURIComponent(r.id)}/progress`, { method: 'DELETE' });
                        await reload();
                        return `The progress of ${r.id} is reset.`;
                      }} />{' '}
                  <ActionButton label="Delete" name={`Delete ${r.id}`} tone="danger" confirm={`Delete the registration ${r.id}?`} act={act} run={async () => {
                        await api(session, `/registrations/${encodeURIComponent(r.id)}`, { method: 'DELETE' });
                        await reload();
                        return `Registration ${r.id} deleted.`;
                      }} />
                </span>
              ),
            },
          ]}
          rows={data.registrations}
        />
      )}
      {data && <p class="subtitle">Completion of these registrations: {percent(data.registrations.filter((r) => r.registrationCompletion === 'COMPLETED').length, data.registrations.length)}</p>}
    </>
  );
}

// ---- settings ---------------------------------------------------------------------------------------------

interface SettingItem {
  id: string;
  effectiveValue: string;
  effectiveValueSource: string;
  explicitValue?: string;
  metadata?: { default?: string; dataType?: string; settingDescription?: string; validValues?: Array<{ value: string }> };
}

const LEVELS = { application: 'Application', course: 'Course', registration: 'Registration' } as const;
type Level = keyof typeof LEVELS;
const SOURCE: Record<string, string> = {
  default: 'default',
  application: 'application',
  learningStandardForApplication: 'application (learning standard)',
  course: 'course',
  registration: 'registration',
  dispatch: 'dispatch',
  dispatchDestination: 'dispatch destination',
};

function configurationPath(level: Level, id: string): string {
  return level === 'application' ? '/appManagement/configuration' : `/${level === 'course' ? 'courses' : 'registrations'}/${encodeURIComponent(id)}/configuration`;
}

/** Each setting's effective value and the level it comes from; a value set here is explicit at this level. */
export function SettingsSection(props: { session: Session; query: URLSearchParams }) {
  const { session } = props;
  const level = (props.query.get('level') as Level | null) ?? 'application';
  const id = props.query.get('id') ?? '';
  const filter = props.query.get('filter') ?? '';
  const [form, setForm] = useState({ level, id, filter });
  const ready = level === 'application' || id !== '';
  const { data, error, reload } = useData(
    () => (ready ? api<{ settingItems: SettingItem[] }>(session, configurationPath(level, id), { query: { includeMetadata: 'true' } }) : Promise.resolve({ settingItems: [] })),
    [session.token, level, id],
  );
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const save = async (item: SettingItem, value: string | null) => {
    setActionError(null);
    try {
      if (value === null) await api(session, `${configurationPath(level, id)}/${encodeURIComponent(item.id)}`, { method: 'DELETE' });
      else await api(session, configurationPath(level, id), { method: 'POST', body: { settings: [{ settingId: item.id, value }] } });
      await reload();
      setEdits(({ [item.id]: _, ...rest }) => rest);
      setMessage(value === null ? `${item.id} is no longer set at this level.` : `${item.id} is set to ${value} at the ${level} level.`);
    } catch (err) {
      setActionError(errorText(err));
    }
  };
  const shown = (data?.settingItems ?? []).filter((s) => !filter || s.id.toLowerCase().includes(filter.toLowerCase()));
  return (
    <>
      <h1>Settings</h1>
      <form
        class="filters card"
        aria-label="Which settings"
        onSubmit={(e) => {
          e.preventDefault();
          go('settings', { level: form.level, id: form.level === 'application' ? undefined : form.id, filter: form.filter });
        }}
      >
        <div>
          <label for="settings-level">Level</label>
          <select id="settings-level" value={form.level} onChange={(e) => setForm({ ...form, level: e.currentTarget.value as Level })}>
            {Object.entries(LEVELS).map(([k, v]) => (
              <option value={k}>{v}</option>
            ))}
          </select>
        </div>
        {form.level !== 'application' && (
          <div>
            <label for="settings-id">{form.level === 'course' ? 'Course id' : 'Registration id'}</label>
            <input id="settings-id" required value={form.id} onInput={(e) => setForm({ ...form, id: e.currentTarget.value })} />
          </div>
        )}
        <div>
          <label for="settings-filter">Setting name contains</label>
          <input id="settings-filter" value={form.filter} onInput={(e) => setForm({ ...form, filter: e.currentTarget.value })} />
        </div>
        <div class="actions">
          <button type="submit">Show</button>
        </div>
      </form>
      <p class="subtitle">
        {LEVELS[level]} level{id ? ` of ${id}` : ''}: the effective value of each setting and the level it comes from (registration → course → application → default).
      </p>
      <Status error={actionError ?? error} message={message} />
      {data && (
        <DataTable<SettingItem>
          caption={`Settings at the ${level} level`}
          file={`settings-${level}${id ? `-${id}` : ''}`}
          columns={[
            { header: 'Setting', cell: (s) => <span title={s.metadata?.settingDescription}>{s.id}</span>, csv: (s) => s.id },
            { header: 'Effective value', cell: (s) => s.effectiveValue },
            { header: 'Comes from', cell: (s) => SOURCE[s.effectiveValueSource] ?? s.effectiveValueSource, csv: (s) => s.effectiveValueSource },
            {
              header: 'Value at this level',
              csv: (s) => s.explicitValue ?? '',
              cell: (s) => (
                <form
                  class="inline-edit"
                  onSubmit={(e) => {
                    e.preventDefault();
                    void save(s, edits[s.id] ?? s.explicitValue ?? '');
                  }}
                >
                  <input aria-label={`Value of ${s.id} at the ${level} level`} value={edits[s.id] ?? s.explicitValue ?? ''} placeholder={s.effectiveValue} onInput={(e) => setEdits({ ...edits, [s.id]: e.currentTarget.value })} />
                  <button type="submit" aria-label={`Save ${s.id}`}>
                    Save
                  </button>
                  {s.explicitValue !== undefined && (
                    <button type="button" class="secondary" aria-label={`Clear ${s.id} at this level`} onClick={() => void save(s, null)}>
                      Clear
                    </button>
                  )}
                </form>
              ),
            },
          ]}
          rows={shown}
        />
      )}
    </>
  );
}
