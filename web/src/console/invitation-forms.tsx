import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Session } from '../shared/api';
import { dateTime } from '../shared/format';
import { Status, useActions } from './sections';

// Invitations: a private invitation (CreatePrivateInvitation, GetPrivateInvitationJobStatus) and an invitation's
// updatable attributes (UpdatePublicInvitation, UpdatePrivateInvitation).

export type Kind = 'public' | 'private';

/** What the edit form needs of an invitation. */
export interface EditableInvitation {
  id: string;
  kind: Kind;
  allowLaunch: boolean;
  allowNewRegistrations?: boolean;
  expirationDate?: string;
}

/** InvitationJobStatusSchema */
interface JobStatus {
  status: 'STARTED' | 'CANCELLED' | 'COMPLETE' | 'ERROR';
  errors?: string[];
  total?: number;
  processed?: number;
}

const DUPLICATE_OPTIONS = [
  ['SEND_EXISTING', "Send the learner's existing registration"],
  ['INSTANCE_EXISTING', 'Start a new attempt of the existing registration'],
  ['CREATE_NEW', 'Create a new registration'],
  ['FAIL', 'Leave the address out (error)'],
] as const;

/** A date-time input's value (YYYY-MM-DDTHH:MM, read as UTC) from an ISO date, and back. */
const toInput = (iso?: string) => (iso ? new Date(iso).toISOString().slice(0, 16) : '');
const fromInput = (value: string) => (value ? new Date(`${value}:00Z`).toISOString() : null);

/** Addresses typed one a line, or separated by commas or spaces. */
export const addressesOf = (text: string) => [...new Set(text.split(/[\s,;]+/).map((a) => a.trim()).filter(Boolean))];

/** The e-mails' job of a private invitation, read until it is over. */
function JobProgress(props: { session: Session; invitationId: string; onDone: () => void }) {
  const [job, setJob] = useState<JobStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        const s = await api<JobStatus>(props.session, `/invitations/private/${encodeURIComponent(props.invitationId)}/jobStatus`);
        if (!live) return;
        setJob(s);
        if (s.status === 'STARTED') timer = setTimeout(() => void read(), 500);
        else props.onDone();
      } catch (err) {
        if (live) setError(err instanceof Error ? err.message : String(err));
      }
    };
    void read();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [props.invitationId]);
  if (error) return <Status error={error} message={null} />;
  if (!job) return <p role="status">Reading the e-mails' job of invitation {props.invitationId}…</p>;
  const counts = job.total !== undefined ? `${job.processed ?? 0} of ${job.total} e-mails` : '';
  const words = { STARTED: 'sending', COMPLETE: 'done', ERROR: 'failed', CANCELLED: 'cancelled' }[job.status];
  return (
    <div role="status" aria-label="E-mail job">
      <p>
        E-mails of invitation <code>{props.invitationId}</code>: {words} ({job.status}){counts ? `, ${counts}` : ''}.
      </p>
      {job.errors?.length ? (
        <ul>
          {job.errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** CreatePrivateInvitation: one registration and one e-mail per address; the job's progress below the form. */
export function PrivateInvitationForm(props: { session: Session; onCreated: () => Promise<void> }) {
  const { session } = props;
  const empty = { courseId: '', creator: '', addresses: '', subject: '', body: '', expires: '', duplicate: 'SEND_EXISTING' };
  const [form, setForm] = useState(empty);
  const [job, setJob] = useState<string | null>(null);
  const { message, error, act } = useActions();
  const set = (k: keyof typeof empty) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [k]: e.currentTarget.value });
  return (
    <form
      class="card"
      aria-label="New private invitation"
      onSubmit={(e) => {
        e.preventDefault();
        void act(async () => {
          const addresses = addressesOf(form.addresses);
          if (addresses.length === 0) throw new Error('List at least one learner address.');
          const created = await api<{ id: string; courseId: string }>(session, '/invitations/private', {
            method: 'POST',
            body: {
              courseId: form.courseId.trim(),
              creatingUserEmail: form.creator.trim(),
              invitationEmail: { addresses, ...(form.subject.trim() ? { subject: form.subject.trim() } : {}), ...(form.body.trim() ? { body: form.body } : {}) },
              duplicateRegistrationOption: form.duplicate,
              ...(form.expires ? { expirationDate: fromInput(form.expires) } : {}),
            },
          });
          setForm(empty);
          setJob(created.id);
          await props.onCreated();
          return `Private invitation ${created.id} created for ${created.courseId}: ${addresses.length} address(es).`;
        });
      }}
    >
      <h2>New private invitation</h2>
      <div class="filters">
        <div>
          <label for="pinv-course">Course</label>
          <input id="pinv-course" required value={form.courseId} onInput={set('courseId')} />
        </div>
        <div>
          <label for="pinv-creator">Creator's e-mail</label>
          <input id="pinv-creator" type="email" required value={form.creator} onInput={set('creator')} />
        </div>
        <div>
          <label for="pinv-duplicate">A learner already registered</label>
          <select id="pinv-duplicate" value={form.duplicate} onChange={set('duplicate')}>
            {DUPLICATE_OPTIONS.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="pinv-expires">Expires (UTC, optional)</label>
          <input id="pinv-expires" type="datetime-local" value={form.expires} onInput={set('expires')} />
        </div>
      </div>
      <label for="pinv-addresses">Learners' addresses (one a line)</label>
      <textarea id="pinv-addresses" rows={4} required value={form.addresses} onInput={set('addresses')} />
      <label for="pinv-subject">Subject (optional)</label>
      <input id="pinv-subject" value={form.subject} onInput={set('subject')} />
      <label for="pinv-body">Message (optional; the link is added)</label>
      <textarea id="pinv-body" rows={3} value={form.body} onInput={set('body')} />
      <div class="filters">
        <div class="actions">
          <button type="submit">Create private invitation</button>
        </div>
      </div>
      <Status error={error} message={message} />
      {job && <JobProgress session={session} invitationId={job} onDone={() => void props.onCreated()} />}
    </form>
  );
}

/** UpdatePublicInvitation / UpdatePrivateInvitation: expiry, launches and (public) new registrations. */
export function InvitationEditForm(props: { session: Session; invitation: EditableInvitation; onSaved: () => Promise<void>; onClose: () => void }) {
  const { invitation: inv } = props;
  const [form, setForm] = useState({ expires: toInput(inv.expirationDate), allowLaunch: inv.allowLaunch, allowNewRegistrations: inv.allowNewRegistrations !== false });
  const { message, error, act } = useActions();
  const first = useRef<HTMLInputElement>(null);
  // Opened from a row far down the tables: the form comes into view, ready to type in.
  useEffect(() => first.current?.focus(), [inv.id]);
  return (
    <form
      class="card spaced"
      aria-label={`Edit invitation ${inv.id}`}
      onSubmit={(e) => {
        e.preventDefault();
        void act(async () => {
          const saved = await api<{ expirationDate?: string }>(props.session, `/invitations/${inv.kind}/${encodeURIComponent(inv.id)}`, {
            method: 'PUT',
            body: { expirationDate: fromInput(form.expires), allowLaunch: form.allowLaunch, ...(inv.kind === 'public' ? { allowNewRegistrations: form.allowNewRegistrations } : {}) },
          });
          await props.onSaved();
          return `Invitation ${inv.id} saved: ${saved.expirationDate ? `expires ${dateTime(saved.expirationDate)}` : 'no expiry'}.`;
        });
      }}
    >
      <h2>
        Edit {inv.kind} invitation <code>{inv.id}</code>
      </h2>
      <div class="filters">
        <div>
          <label for="einv-expires">Expiry (UTC; empty: none)</label>
          <input id="einv-expires" ref={first} type="datetime-local" value={form.expires} onInput={(e) => setForm({ ...form, expires: e.currentTarget.value })} />
        </div>
        <div>
          <label for="einv-launch">
            <input id="einv-launch" type="checkbox" checked={form.allowLaunch} onChange={(e) => setForm({ ...form, allowLaunch: e.currentTarget.checked })} /> Allow launches
          </label>
        </div>
        {inv.kind === 'public' && (
          <div>
            <label for="einv-new">
              <input id="einv-new" type="checkbox" checked={form.allowNewRegistrations} onChange={(e) => setForm({ ...form, allowNewRegistrations: e.currentTarget.checked })} /> Allow new
              registrations
            </label>
          </div>
        )}
        <div class="actions">
          <button type="submit">Save invitation</button>
          <button type="button" class="secondary" onClick={props.onClose}>
            Close
          </button>
        </div>
      </div>
      <Status error={error} message={message} />
    </form>
  );
}
