import { useState } from 'preact/hooks';
import { api, type Session } from '../shared/api';
import { DataTable } from '../shared/components';
import { date } from '../shared/format';
import { go } from './nav';
import { ActionButton, Status, useActions, useData } from './sections';

interface AppRow {
  id: string;
  name: string;
  createDate: string;
  allowDelete: boolean;
}

interface KeyRow {
  id: string;
  name: string;
  credential: string;
  status: 'active' | 'disabled';
  created: string;
}

/** Applications and their secret keys (a management application's session; Application Management operations). */
export function ApplicationsSection(props: { session: Session; query: URLSearchParams }) {
  const { session } = props;
  const selected = props.query.get('app') ?? '';
  const { data, error, reload } = useData(() => api<{ applications: AppRow[] }>(session, '/appManagement/applicationList'), [session.token]);
  const { message, error: actionError, act } = useActions();
  const [name, setName] = useState('');
  const [renames, setRenames] = useState<Record<string, string>>({});
  if (!session.isManagement) return <Status error="Applications are managed with a management application's key: sign in with one." message={null} />;
  return (
    <>
      <h1>Applications</h1>
      <form
        class="card filters"
        aria-label="New application"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const created = await api<{ id: string; name: string }>(session, '/appManagement/applications', { method: 'POST', body: { name: name.trim() } });
            setName('');
            await reload();
            return `Application ${created.name} created (${created.id}).`;
          });
        }}
      >
        <div>
          <label for="new-app-name">New application's name</label>
          <input id="new-app-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="actions">
          <button type="submit">Create</button>
        </div>
      </form>
      <Status error={actionError ?? error} message={message} />
      {data && (
        <DataTable<AppRow>
          caption="Applications"
          file="applications"
          columns={[
            { header: 'Name', cell: (a) => a.name },
            { header: 'Id', cell: (a) => a.id },
            { header: 'Created', cell: (a) => date(a.createDate), csv: (a) => a.createDate },
            {
              header: 'Actions',
              csv: () => '',
              cell: (a) => (
                <span class="actions-cell">
                  <form
                    class="inline-edit"
                    onSubmit={(e) => {
                      e.preventDefault();
                      void act(async () => {
                        await api(session, `/appManagement/applications/${encodeURIComponent(a.id)}`, { method: 'PUT', body: { name: (renames[a.id] ?? a.name).trim() } });
                        await reload();
                        return `Application ${a.id} renamed.`;
                      });
                    }}
                  >
                    <input aria-label={`New name of ${a.name}`} value={renames[a.id] ?? a.name} onInput={(e) => setRenames({ ...renames, [a.id]: e.currentTarget.value })} />
                    <button type="submit" aria-label={`Rename ${a.name}`}>
                      Rename
                    </button>
                  </form>
                  <a
                    href={`applications?app=${encodeURIComponent(a.id)}`}
                    onClick={(e) => {
                      e.preventDefault();
                      go('applications', { app: a.id });
                    }}
                  >
                    Keys and administrators
                  </a>
                  {a.id !== session.appId && (
                    <ActionButton
                      label="Delete"
                      name={`Delete ${a.name}`}
                      tone="danger"
                      confirm={`Delete the application ${a.name} (${a.id}) and everything it holds?`}
                      act={act}
                      run={async () => {
                        await api(session, `/appManagement/applications/${encodeURIComponent(a.id)}`, { method: 'DELETE' });
                        await reload();
                        return `Application ${a.id} deleted.`;
                      }}
                    />
                  )}
                </span>
              ),
            },
          ]}
          rows={data.applications}
        />
      )}
      {selected && <KeysPanel session={session} appId={selected} />}
      {selected && <AdminsPanel session={session} appId={selected} />}
    </>
  );
}

function KeysPanel(props: { session: Session; appId: string }) {
  const { session, appId } = props;
  const base = `/appManagement/${encodeURIComponent(appId)}/credentials`;
  const { data, error, reload } = useData(() => api<{ credentials: KeyRow[] }>(session, base), [session.token, appId]);
  const { message, error: actionError, act } = useActions();
  const [name, setName] = useState('');
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Secret keys of {appId}</h2>
      <form
        class="card filters"
        aria-label="New secret key"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const key = await api<KeyRow>(session, base, { method: 'POST', body: { name: name.trim() || 'Secret key' } });
            setName('');
            await reload();
            return `Key ${key.name} created: ${key.credential}`;
          });
        }}
      >
        <div>
          <label for="new-key-name">New key's name</label>
          <input id="new-key-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="actions">
          <button type="submit">Create key</button>
        </div>
      </form>
      <Status error={actionError ?? error} message={message} />
      {data && (
        <DataTable<KeyRow>
          caption={`Secret keys of ${appId}`}
          file={`keys-${appId}`}
          columns={[
            { header: 'Name', cell: (k) => k.name },
            { header: 'Id', cell: (k) => k.id },
            { header: 'Status', cell: (k) => (k.status === 'active' ? 'Enabled' : 'Disabled'), csv: (k) => k.status },
            { header: 'Created', cell: (k) => date(k.created), csv: (k) => k.created },
            {
              header: 'Actions',
              csv: () => '',
              cell: (k) => (
                <span class="actions-cell">
                  <ActionButton
                    label={k.status === 'active' ? 'Disable' : 'Enable'}
                    name={`${k.status === 'active' ? 'Disable' : 'Enable'} ${k.name}`}
                    tone="secondary"
                    act={act}
                    run={async () => {
                      await api(session, `${base}/${encodeURIComponent(k.id)}`, { method: 'PUT', body: { name: k.name, active: k.status !== 'active' } });
                      await reload();
                      return `Key ${k.name} ${k.status === 'active' ? 'disabled' : 'enabled'}.`;
                    }}
                  />
                  <ActionButton
                    label="Delete"
                    name={`Delete ${k.name}`}
                    tone="danger"
                    confirm={`Delete the key ${k.name}? Clients using it are refused at once.`}
                    act={act}
                    run={async () => {
                      await api(session, `${base}/${encodeURIComponent(k.id)}`, { method: 'DELETE' });
                      await reload();
                      return `Key ${k.name} deleted.`;
                    }}
                  />
                </span>
              ),
            },
          ]}
          rows={data.credentials}
        />
      )}
    </section>
  );
}

/** An application's administrators: the addresses DeleteAllLearnerData accepts as userEmail (LCDS's own operations). */
function AdminsPanel(props: { session: Session; appId: string }) {
  const { session, appId } = props;
  const base = `/lcds/applications/${encodeURIComponent(appId)}/admins`;
  const { data, error, reload } = useData(() => api<{ admins: Array<{ email: string; added: string }> }>(session, base), [session.token, appId]);
  const { message, error: actionError, act } = useActions();
  const [email, setEmail] = useState('');
  return (
    <section aria-labelledby="admins-title">
      <h2 id="admins-title">Administrators of {appId}</h2>
      <p class="subtitle">The e-mail addresses that may ask for a learner's data to be erased (DeleteAllLearnerData's userEmail).</p>
      <form
        class="card filters"
        aria-label="New administrator"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            await api(session, base, { method: 'POST', body: { email: email.trim() } });
            setEmail('');
            await reload();
            return `${email.trim()} administers ${appId}.`;
          });
        }}
      >
        <div>
          <label for="new-admin-email">Administrator's e-mail address</label>
          <input id="new-admin-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </div>
        <div class="actions">
          <button type="submit">Add administrator</button>
        </div>
      </form>
      <Status error={actionError ?? error} message={message} />
      {data && (
        <DataTable<{ email: string; added: string }>
          caption={`Administrators of ${appId}`}
          file={`admins-${appId}`}
          empty="No administrator: no one may erase a learner's data yet."
          columns={[
            { header: 'E-mail address', cell: (a) => a.email },
            { header: 'Added', cell: (a) => date(a.added), csv: (a) => a.added },
            {
              header: 'Actions',
              csv: () => '',
              cell: (a) => (
                <ActionButton
                  label="Remove"
                  name={`Remove administrator ${a.email}`}
                  tone="danger"
                  confirm={`Remove ${a.email} from the administrators of ${appId}?`}
                  act={act}
                  run={async () => {
                    await api(session, `${base}/${encodeURIComponent(a.email)}`, { method: 'DELETE' });
                    await reload();
                    return `${a.email} no longer administers ${appId}.`;
                  }}
                />
              ),
            },
          ]}
          rows={data.admins}
        />
      )}
    </section>
  );
}
