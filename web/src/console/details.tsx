import { api, type Activity, type Session } from '../shared/api';
import { DataTable } from '../shared/components';
import { date, duration, score, status } from '../shared/format';
import { go } from './nav';
import { ActionButton, Status, useActions, useData } from './sections';

// Panels under the courses and registrations tables: a course's versions (GetCourseVersions, DeleteCourseVersion)
// and a registration's progress tree (GetRegistrationProgress with includeChildResults).

interface VersionRow {
  id: string;
  version: number;
  title: string;
  courseLearningStandard: string;
  registrationCount?: number;
  created: string;
  updated: string;
}

export function VersionsPanel(props: { session: Session; courseId: string; onChanged: () => Promise<void> }) {
  const { session, courseId } = props;
  const base = `/courses/${encodeURIComponent(courseId)}/versions`;
  const { data, error, reload } = useData(() => api<{ courses: VersionRow[] }>(session, base, { query: { includeRegistrationCount: 'true' } }), [session.token, courseId]);
  const { message, error: actionError, act } = useActions();
  const rows = [...(data?.courses ?? [])].sort((a, b) => b.version - a.version);
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Versions of {courseId}</h2>
      <p>
        <a
          href="courses"
          onClick={(e) => {
            e.preventDefault();
            go('courses');
          }}
        >
          Close the versions
        </a>
      </p>
      <Status error={actionError ?? error} message={message} />
      {data && (
        <DataTable<VersionRow>
          caption={`Versions of ${courseId}`}
          file={`versions-${courseId}`}
          columns={[
            { header: 'Version', cell: (v) => v.version, numeric: true },
            { header: 'Title', cell: (v) => v.title },
            { header: 'Standard', cell: (v) => v.courseLearningStandard },
            { header: 'Registrations', cell: (v) => v.registrationCount ?? 0, numeric: true },
            { header: 'Imported', cell: (v) => date(v.created), csv: (v) => v.created },
            {
              header: 'Actions',
              csv: () => '',
              cell: (v) =>
                rows.length > 1 ? (
                  <ActionButton
                    label="Delete"
                    name={`Delete version ${v.version} of ${courseId}`}
                    tone="danger"
                    confirm={`Delete version ${v.version} of ${courseId} and its registrations?`}
                    act={act}
                    run={async () => {
                      await api(session, `${base}/${v.version}`, { method: 'DELETE' });
                      await reload();
                      await props.onChanged();
                      return `Version ${v.version} of ${courseId} deleted.`;
                    }}
                  />
                ) : (
                  'the only version'
                ),
            },
          ]}
          rows={rows}
        />
      )}
    </section>
  );
}

interface Progress {
  id: string;
  registrationCompletion: string;
  registrationSuccess: string;
  score?: { scaled?: number };
  totalSecondsTracked: number;
  activityDetails?: Activity;
}

const successText = (value: string) => (value === 'UNKNOWN' ? 'No pass/fail' : status(value));
const pillClass = (value: string) => (value === 'COMPLETED' || value === 'PASSED' ? 'pill good' : value === 'FAILED' ? 'pill bad' : 'pill');

function ActivityNode(props: { activity: Activity }) {
  const a = props.activity;
  return (
    <li>
      <div class="node">
        <strong>{a.title || a.id}</strong>
        <span class={pillClass(a.activityCompletion)}>{status(a.activityCompletion)}</span>
        <span class={pillClass(a.activitySuccess)}>{successText(a.activitySuccess)}</span>
        <span>Score {score(a.score?.scaled)}</span>
        <span>
          {a.attempts} attempt{a.attempts === 1 ? '' : 's'}
        </span>
        {a.suspended && <span class="pill">suspended</span>}
      </div>
      {a.children && a.children.length > 0 && (
        <ul class="tree">
          {a.children.map((c) => (
            <ActivityNode activity={c} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function ProgressPanel(props: { session: Session; registrationId: string; close: () => void }) {
  const { session, registrationId } = props;
  const { data, error } = useData(() => api<Progress>(session, `/registrations/${encodeURIComponent(registrationId)}`, { query: { includeChildResults: 'true' } }), [session.token, registrationId]);
  return (
    <section aria-labelledby="progress-title" class="card">
      <h2 id="progress-title">Progress of {registrationId}</h2>
      <p>
        <button type="button" class="secondary" onClick={props.close}>
          Close the progress
        </button>
      </p>
      {!data ? (
        <Status error={error} message="Loading…" />
      ) : (
        <>
          <p>
            {status(data.registrationCompletion)}, {successText(data.registrationSuccess).toLowerCase()}, score {score(data.score?.scaled)}, time {duration(data.totalSecondsTracked)}.
          </p>
          {data.activityDetails ? (
            <ul class="tree" aria-label={`Activity tree of ${registrationId}`}>
              <ActivityNode activity={data.activityDetails} />
            </ul>
          ) : (
            <p>No activity yet.</p>
          )}
        </>
      )}
    </section>
  );
}
