import { useState } from 'preact/hooks';
import { api, type Session } from '../shared/api';
import { DataTable } from '../shared/components';
import { dateTime } from '../shared/format';
import { ActionButton, Status, useActions, useData } from './sections';

// xAPI credentials (keys of the application's LRS) and statement pipes (GetXapiCredentials, GetStatementPipes, …).

interface XapiCredential {
  id: string;
  name: string;
  info?: string;
  isEnabled: boolean;
  auth: { xapiCredentialAuthType: string };
  permissionsLevel: { xapiCredentialPermissionsLevel: string };
}

interface Endpoint {
  url: string;
  userName?: string;
}

interface StatementPipe {
  id: string;
  source: Endpoint;
  target: Endpoint;
  attempts: number;
  visibleAfter: string;
  lastForwardedStatementDate?: string;
  moreUrl?: string;
}

const PERMISSIONS = ['USER', 'ROOT', 'READONLY', 'WRITEONLY', 'DEFAULT'];

/** A pipe's state in words: failing (with its next try), waiting, or forwarding. */
export function pipeState(p: StatementPipe, now = Date.now()): string {
  const next = Date.parse(p.visibleAfter);
  if (p.attempts > 0) return `Failing: ${p.attempts} failed attempt${p.attempts === 1 ? '' : 's'}, next try ${dateTime(p.visibleAfter)}`;
  if (next > now + 1000) return `Waiting until ${dateTime(p.visibleAfter)}`;
  return p.moreUrl ? 'Catching up (more statements to forward)' : 'Up to date';
}

export function XapiSection(props: { session: Session }) {
  return (
    <>
      <h1>xAPI</h1>
      <p class="subtitle">Credentials for activity providers to use this application's LRS, and statement pipes that forward statements from one LRS to another.</p>
      <CredentialsPanel session={props.session} />
      <PipesPanel session={props.session} />
    </>
  );
}

function CredentialsPanel(props: { session: Session }) {
  const { session } = props;
  const { data, error, reload } = useData(() => api<{ xapiCredentials: XapiCredential[] }>(session, '/xapi/credentials'), [session.token]);
  const { message, error: actionError, act } = useActions();
  const [form, setForm] = useState({ name: '', permissionsLevel: 'USER' });
  const body = (c: XapiCredential, isEnabled: boolean) => ({
    name: c.name,
    ...(c.info !== undefined ? { info: c.info } : {}),
    isEnabled,
    auth: c.auth.xapiCredentialAuthType,
    permissionsLevel: c.permissionsLevel.xapiCredentialPermissionsLevel,
  });
  return (
    <section aria-labelledby="xapi-credentials-title">
      <h2 id="xapi-credentials-title">xAPI credentials</h2>
      <form
        class="card filters"
        aria-label="New xAPI credential"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const { result } = await api<{ result: string }>(session, '/xapi/credentials', { method: 'POST', body: { name: form.name.trim(), isEnabled: true, auth: 'BASICAUTH', permissionsLevel: form.permissionsLevel } });
            const created = await api<XapiCredential & { secret: string }>(session, `/xapi/credentials/${encodeURIComponent(result)}`);
            setForm({ ...form, name: '' });
            await reload();
            return `Credential ${created.name} created. User name: ${created.id}; secret: ${created.secret} (shown once here; GetXapiCredential shows it again).`;
          });
        }}
      >
        <div>
          <label for="xapi-cred-name">Name</label>
          <input id="xapi-cred-name" required value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />
        </div>
        <div>
          <label for="xapi-cred-permissions">Permissions</label>
          <select id="xapi-cred-permissions" value={form.permissionsLevel} onChange={(e) => setForm({ ...form, permissionsLevel: e.currentTarget.value })}>
            {PERMISSIONS.map((p) => (
              <option value={p}>{p}</option>
            ))}
          </select>
        </div>
        <div class="actions">
          <button type="submit">Create credential</button>
        </div>
      </form>
      <Status error={actionError ?? error} message={message} />
      {data && (
        <DataTable<XapiCredential>
          caption="xAPI credentials"
          file="xapi-credentials"
          empty="No xAPI credential: activity providers use the application's own keys."
          columns={[
            { header: 'Name', cell: (c) => c.name },
            { header: 'User name (id)', cell: (c) => <code>{c.id}</code>, csv: (c) => c.id },
            { header: 'Permissions', cell: (c) => c.permissionsLevel.xapiCredentialPermissionsLevel },
            { header: 'Auth', cell: (c) => c.auth.xapiCredentialAuthType },
            { header: 'State', cell: (c) => (c.isEnabled ? <span class="pill good">Enabled</span> : <span class="pill bad">Disabled</span>), csv: (c) => (c.isEnabled ? 'enabled' : 'disabled') },
            {
              header: 'Actions',
              csv: () => '',
              cell: (c) => (
                <span class="actions-cell">
                  <ActionButton
                    label={c.isEnabled ? 'Disable' : 'Enable'}
                    name={`${c.isEnabled ? 'Disable' : 'Enable'} xAPI credential ${c.name}`}
                    tone="secondary"
                    act={act}
                    run={async () => {
                      await api(session, `/xapi/credentials/${encodeURIComponent(c.id)}`, { method: 'PUT', body: body(c, !c.isEnabled) });
                      await reload();
                      return `xAPI credential ${c.name} ${c.isEnabled ? 'disabled' : 'enabled'}.`;
                    }}
                  />
                  <ActionButton
                    label="Delete"
                    name={`Delete xAPI credential ${c.name}`}
                    tone="danger"
                    confirm={`Delete the xAPI credential ${c.name}? Activity providers using it are refused at once.`}
                    act={act}
                    run={async () => {
                      await api(session, `/xapi/credentials/${encodeURIComponent(c.id)}`, { method: 'DELETE' });
                      await reload();
                      return `xAPI credential ${c.name} deleted.`;
                    }}
                  />
                </span>
              ),
            },
          ]}
          rows={data.xapiCredentials}
        />
      )}
    </section>
  );
}

function PipesPanel(props: { session: Session }) {
  const { session } = props;
  const { data, error, reload } = useData(() => api<{ xapiStatementPipes: StatementPipe[] }>(session, '/xapi/statementPipes'), [session.token]);
  const { message, error: actionError, act } = useActions();
  const [form, setForm] = useState({ url: '', userName: '', password: '' });
  return (
    <section aria-labelledby="pipes-title">
      <h2 id="pipes-title">Statement pipes</h2>
      <form
        class="card filters"
        aria-label="New statement pipe"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const target = { url: form.url.trim(), ...(form.userName ? { userName: form.userName } : {}), ...(form.password ? { password: form.password } : {}) };
            const { result } = await api<{ result: string }>(session, '/xapi/statementPipes', { method: 'POST', body: { target } });
            setForm({ url: '', userName: '', password: '' });
            await reload();
            return `Statement pipe ${result} created: this application's statements go to ${target.url}.`;
          });
        }}
      >
        <div>
          <label for="pipe-target-url">Target LRS endpoint</label>
          <input id="pipe-target-url" type="url" required placeholder="https://lrs.example.com/xapi/" value={form.url} onInput={(e) => setForm({ ...form, url: e.currentTarget.value })} />
        </div>
        <div>
          <label for="pipe-target-user">Target user name</label>
          <input id="pipe-target-user" autoComplete="off" value={form.userName} onInput={(e) => setForm({ ...form, userName: e.currentTarget.value })} />
        </div>
        <div>
          <label for="pipe-target-password">Target password</label>
          <input id="pipe-target-password" type="password" autoComplete="new-password" value={form.password} onInput={(e) => setForm({ ...form, password: e.currentTarget.value })} />
        </div>
        <div class="actions">
          <button type="submit">Create pipe</button>
        </div>
      </form>
      <Status error={actionError ?? error} message={message} />
      {data && (
        <DataTable<StatementPipe>
          caption="Statement pipes"
          file="statement-pipes"
          empty="No statement pipe."
          columns={[
            { header: 'Pipe', cell: (p) => <code>{p.id}</code>, csv: (p) => p.id },
            { header: 'From', cell: (p) => p.source.url },
            { header: 'To', cell: (p) => p.target.url },
            { header: 'State', cell: (p) => <span class="state">{pipeState(p)}</span>, csv: (p) => pipeState(p) },
            { header: 'Last statement forwarded', cell: (p) => dateTime(p.lastForwardedStatementDate), csv: (p) => p.lastForwardedStatementDate ?? '' },
            {
              header: 'Actions',
              csv: () => '',
              cell: (p) => (
                <ActionButton
                  label="Delete"
                  name={`Delete statement pipe ${p.id}`}
                  tone="danger"
                  confirm={`Delete the statement pipe to ${p.target.url}?`}
                  act={act}
                  run={async () => {
                    await api(session, `/xapi/statementPipes/${encodeURIComponent(p.id)}`, { method: 'DELETE' });
                    await reload();
                    return `Statement pipe ${p.id} deleted.`;
                  }}
                />
              ),
            },
          ]}
          rows={data.xapiStatementPipes}
        />
      )}
    </section>
  );
}
