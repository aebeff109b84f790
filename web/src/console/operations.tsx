import { useState } from 'preact/hooks';
import { api, type Session } from '../shared/api';
import { DataTable, Figures } from '../shared/components';
import { dateTime } from '../shared/format';
import { go } from './nav';
import { ActionButton, Status, useActions, useData } from './sections';

// LCDS's own operations (/api/v2/lcds/…): the audit log and the job queues.

interface AuditEntry {
  id: string;
  occurredAt: string;
  appId: string;
  action: string;
  actorKind: 'basic' | 'bearer' | 'cli';
  actorAppId: string | null;
  actorCredentialId: string | null;
  source: string | null;
  targets: Record<string, string>;
  fields: string[];
}

/** To the second: several changes often fall in one minute. */
const when = (iso: string) => <span class="nowrap">{`${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`}</span>;

const ACTOR_KIND = { basic: 'secret key', bearer: 'token', cli: 'command line' } as const;

const who = (e: AuditEntry): string => (e.actorKind === 'cli' ? 'lcds command line' : `${e.actorAppId ?? '?'} (${ACTOR_KIND[e.actorKind]} ${e.actorCredentialId ?? ''})`);
const targetsText = (e: AuditEntry): string =>
  Object.entries(e.targets)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');

/** Who changed what and when: the audit log of the application (a management application may read another's). */
export function AuditSection(props: { session: Session; query: URLSearchParams }) {
  const { session } = props;
  const appId = props.query.get('appId') ?? '';
  const action = props.query.get('action') ?? '';
  const [form, setForm] = useState({ appId, action });
  const [pages, setPages] = useState<AuditEntry[][]>([]);
  const [more, setMore] = useState<string | undefined>();
  const { data, error } = useData(async () => {
    const first = await api<{ entries: AuditEntry[]; more?: string }>(session, '/lcds/audit', { query: { appId: appId || undefined, action: action || undefined } });
    setPages([]);
    setMore(first.more);
    return first;
  }, [session.token, appId, action]);
  const { message, error: moreError, act } = useActions();
  const rows = data ? [...data.entries, ...pages.flat()] : [];
  return (
    <>
      <h1>Audit log</h1>
      <p class="subtitle">Changes of applications, keys, xAPI credentials, statement pipes and configuration, administrators and learner erasures: who made them, from where and when. Values that were set, secrets above all, are never recorded.</p>
      <form
        class="filters card"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          go('audit', form);
        }}
      >
        {session.isManagement && (
          <div>
            <label for="audit-app">Application id (empty: this one)</label>
            <input id="audit-app" value={form.appId} onInput={(e) => setForm({ ...form, appId: e.currentTarget.value })} />
          </div>
        )}
        <div>
          <label for="audit-action">Action</label>
          <input id="audit-action" list="audit-actions" placeholder="any" value={form.action} onInput={(e) => setForm({ ...form, action: e.currentTarget.value })} />
          <datalist id="audit-actions">
            {['CreateApplication', 'UpdateApplication', 'DeleteApplication', 'CreateCredential', 'UpdateCredential', 'DeleteCredential', 'CreateXapiCredential', 'SetXapiCredential', 'DeleteXapiCredential', 'CreateStatementPipe', 'SetStatementPipe', 'DeleteStatementPipe', 'SetApplicationConfiguration', 'DeleteApplicationConfigurationSetting', 'DeleteAllLearnerData'].map((a) => (
              <option value={a} />
            ))}
          </datalist>
        </div>
        <div class="actions">
          <button type="submit">Show</button>
        </div>
      </form>
      <Status error={moreError ?? error} message={message} />
      {data && (
        <DataTable<AuditEntry>
          caption={`Audit log of ${appId || session.appId}`}
          file={`audit-${appId || session.appId}`}
          empty="No change recorded for these filters."
          columns={[
            { header: 'When', cell: (e) => when(e.occurredAt), csv: (e) => e.occurredAt },
            { header: 'Action', cell: (e) => e.action },
            { header: 'Who', cell: who },
            { header: 'From', cell: (e) => e.source ?? '—', csv: (e) => e.source ?? '' },
            { header: 'Targets', cell: targetsText },
            { header: 'Fields set', cell: (e) => (e.fields.length ? e.fields.join(', ') : '—'), csv: (e) => e.fields.join(' ') },
          ]}
          rows={rows}
        />
      )}
      {more && (
        <button
          type="button"
          class="secondary"
          onClick={() =>
            void act(async () => {
              const next = await api<{ entries: AuditEntry[]; more?: string }>(session, '/lcds/audit', { query: { more } });
              setPages((p) => [...p, next.entries]);
              setMore(next.more);
              return `${rows.length + next.entries.length} entries shown.`;
            })
          }
        >
          Show older entries
        </button>
      )}
    </>
  );
}

interface QueueCounts {
  queue: string;
  queued: number;
  running: number;
  completed: number;
  failed: number;
}

interface FailedJob {
  id: string;
  queue: string;
  appId: string | null;
  attempts: number;
  maxAttempts: number;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** The job queues: counts by state, failed jobs with their error, retry. */
export function JobsSection(props: { session: Session }) {
  const { session } = props;
  const load = async () => {
    const [counts, failed] = await Promise.all([api<{ queues: QueueCounts[] }>(session, '/lcds/jobs'), api<{ jobs: FailedJob[]; more?: string }>(session, '/lcds/jobs/failed')]);
    return { queues: counts.queues, failed: failed.jobs, more: failed.more };
  };
  const { data, error, reload } = useData(load, [session.token]);
  const { message, error: actionError, act } = useActions();
  const sum = (k: keyof Omit<QueueCounts, 'queue'>) => String((data?.queues ?? []).reduce((n, q) => n + q[k], 0));
  return (
    <>
      <h1>Jobs</h1>
      <p class="subtitle">
        {session.isManagement ? 'Every job of the installation' : `Jobs of application ${session.appId}`}: imports, postbacks, statement pipes, e-mails. Finished jobs are kept for 7 days.
      </p>
      <p>
        <button type="button" class="secondary" onClick={() =>
            void act(async () => {
              await reload();
              return 'Refreshed.';
            })
          }>
          Refresh
        </button>
      </p>
      <Status error={actionError ?? error} message={message} />
      {data && (
        <>
          <Figures
            items={[
              { label: 'Queued', value: sum('queued'), testId: 'jobs-queued' },
              { label: 'Running', value: sum('running'), testId: 'jobs-running' },
              { label: 'Completed', value: sum('completed'), testId: 'jobs-completed' },
              { label: 'Failed', value: sum('failed'), testId: 'jobs-failed' },
            ]}
          />
          <DataTable<QueueCounts>
            caption="Jobs by queue and state"
            file="job-queues"
            empty="No job in the last 7 days."
            columns={[
              { header: 'Queue', cell: (q) => q.queue },
              { header: 'Queued', cell: (q) => q.queued, numeric: true },
              { header: 'Running', cell: (q) => q.running, numeric: true },
              { header: 'Completed', cell: (q) => q.completed, numeric: true },
              { header: 'Failed', cell: (q) => q.failed, numeric: true },
            ]}
            rows={data.queues}
          />
          <DataTable<FailedJob>
            caption="Failed jobs"
            file="failed-jobs"
            empty="No failed job."
            columns={[
              { header: 'Job', cell: (j) => <code>{j.id}</code>, csv: (j) => j.id },
              { header: 'Queue', cell: (j) => j.queue },
              ...(session.isManagement ? [{ header: 'Application', cell: (j: FailedJob) => j.appId ?? '—' }] : []),
              { header: 'Attempts', cell: (j) => `${j.attempts} of ${j.maxAttempts}` },
              { header: 'Failed at', cell: (j) => dateTime(j.finishedAt), csv: (j) => j.finishedAt ?? '' },
              { header: 'Error', cell: (j) => <span class="error-text">{j.error ?? '—'}</span>, csv: (j) => j.error ?? '' },
              {
                header: 'Actions',
                csv: () => '',
                cell: (j) => (
                  <ActionButton
                    label="Retry"
                    name={`Retry job ${j.id}`}
                    tone="secondary"
                    act={act}
                    run={async () => {
                      await api(session, `/lcds/jobs/${encodeURIComponent(j.id)}/retry`, { method: 'POST' });
                      await reload();
                      return `Job ${j.id} (${j.queue}) is queued again.`;
                    }}
                  />
                ),
              },
            ]}
            rows={data.failed}
          />
          {data.more && <p class="subtitle">Only the 50 most recent failed jobs are shown.</p>}
        </>
      )}
    </>
  );
}
