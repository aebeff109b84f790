import { useState } from 'preact/hooks';
import { api, type Session } from '../shared/api';
import { DataTable } from '../shared/components';
import { date, dateTime } from '../shared/format';
import { EditableInvitation, InvitationEditForm, Kind, PrivateInvitationForm } from './invitation-forms';
import { ActionButton, Status, useActions, useData } from './sections';

// Invitations (GetPublicInvitations, GetPrivateInvitations, CreatePublicInvitation, Update…Invitation; the private
// invitation's and the edit forms in invitation-forms.tsx).

interface Invitation {
  id: string;
  courseId: string;
  allowLaunch: boolean;
  allowNewRegistrations?: boolean;
  url?: string;
  invitationEmail?: { addresses: string[] };
  createDate: string;
  expirationDate?: string;
  registrationCap?: number;
  registrationCount?: number;
}

/** What a person needs to know of an invitation at a glance. */
export function invitationState(i: Invitation, now = Date.now()): string {
  if (i.expirationDate && Date.parse(i.expirationDate) <= now) return `Expired ${date(i.expirationDate)}`;
  if (!i.allowLaunch) return 'Launches stopped';
  if (i.allowNewRegistrations === false) return 'Open to existing registrations only';
  if (i.registrationCap && (i.registrationCount ?? 0) >= i.registrationCap) return 'Full';
  return i.expirationDate ? `Open until ${dateTime(i.expirationDate)}` : 'Open';
}

export function InvitationsSection(props: { session: Session }) {
  const { session } = props;
  const load = async () => {
    const query = { includeRegistrationCount: 'true' };
    const [pub, priv] = await Promise.all([
      api<{ invitations: Invitation[] }>(session, '/invitations/public', { query }),
      api<{ invitations: Invitation[] }>(session, '/invitations/private', { query }),
    ]);
    return { public: pub.invitations, private: priv.invitations };
  };
  const { data, error, reload } = useData(load, [session.token]);
  const { message, error: actionError, act } = useActions();
  const [form, setForm] = useState({ courseId: '', email: '' });
  const [editing, setEditing] = useState<EditableInvitation | null>(null);
  const columns = (kind: Kind) => [
    { header: 'Invitation', cell: (i: Invitation) => <code>{i.id}</code>, csv: (i: Invitation) => i.id },
    { header: 'Course', cell: (i: Invitation) => i.courseId },
    ...(kind === 'public'
      ? [{ header: 'Page', cell: (i: Invitation) => (i.url ? <a href={i.url}>Open the invitation page</a> : '—'), csv: (i: Invitation) => i.url ?? '' }]
      : [{ header: 'Addresses', cell: (i: Invitation) => String(i.invitationEmail?.addresses.length ?? 0), numeric: true }]),
    {
      header: 'Registrations',
      cell: (i: Invitation) => (i.registrationCap ? `${i.registrationCount ?? 0} of ${i.registrationCap}` : String(i.registrationCount ?? 0)),
      numeric: true,
    },
    { header: 'State', cell: (i: Invitation) => invitationState(i) },
    { header: 'Created', cell: (i: Invitation) => date(i.createDate), csv: (i: Invitation) => i.createDate },
    {
      header: 'Actions',
      csv: () => '',
      cell: (i: Invitation) => (
        <span class="actions-cell">
          <button type="button" class="secondary" aria-label={`Edit invitation ${i.id}`} onClick={() => setEditing({ id: i.id, kind, allowLaunch: i.allowLaunch, allowNewRegistrations: i.allowNewRegistrations, expirationDate: i.expirationDate })}>
            Edit
          </button>
          <ActionButton
          label={i.allowLaunch ? 'Stop launches' : 'Allow launches'}
          name={`${i.allowLaunch ? 'Stop launches of' : 'Allow launches of'} invitation ${i.id}`}
          tone="secondary"
          act={act}
          run={async () => {
            await api(session, `/invitations/${kind}/${encodeURIComponent(i.id)}`, { method: 'PUT', body: { allowLaunch: !i.allowLaunch } });
            await reload();
            return `Invitation ${i.id}: launches ${i.allowLaunch ? 'stopped' : 'allowed'}.`;
          }}
          />
        </span>
      ),
    },
  ];
  return (
    <>
      <h1>Invitations</h1>
      <p class="subtitle">Public invitations are a page anyone with the link can join; private ones are e-mailed to a list of addresses, one registration each.</p>
      <form
        class="card filters"
        aria-label="New public invitation"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const created = await api<Invitation>(session, '/invitations/public', { method: 'POST', body: { courseId: form.courseId.trim(), creatingUserEmail: form.email.trim() } });
            setForm({ ...form, courseId: '' });
            await reload();
            return `Public invitation ${created.id} created for ${created.courseId}.`;
          });
        }}
      >
        <div>
          <label for="inv-course">Course id</label>
          <input id="inv-course" required value={form.courseId} onInput={(e) => setForm({ ...form, courseId: e.currentTarget.value })} />
        </div>
        <div>
          <label for="inv-email">Your e-mail address</label>
          <input id="inv-email" type="email" required value={form.email} onInput={(e) => setForm({ ...form, email: e.currentTarget.value })} />
        </div>
        <div class="actions">
          <button type="submit">Create public invitation</button>
        </div>
      </form>
      <Status error={actionError ?? error} message={message} />
      <PrivateInvitationForm session={session} onCreated={reload} />
      {editing && <InvitationEditForm key={`${editing.kind}/${editing.id}`} session={session} invitation={editing} onSaved={reload} onClose={() => setEditing(null)} />}
      {data && (
        <>
          <DataTable<Invitation> caption="Public invitations" file="public-invitations" empty="No public invitation." columns={columns('public')} rows={data.public} />
          <DataTable<Invitation> caption="Private invitations" file="private-invitations" empty="No private invitation." columns={columns('private')} rows={data.private} />
        </>
      )}
    </>
  );
}
