import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { loadSession, signOut, type Session } from '../shared/api';
import { SignInForm } from '../shared/components';
import '../shared/styles.css';
import { ApplicationsSection } from './applications';
import { basePath, go } from './nav';
import { InvitationsSection } from './invitations';
import { AuditSection, JobsSection } from './operations';
import { CoursesSection, OverviewSection, RegistrationsSection, SettingsSection } from './sections';
import { XapiSection } from './xapi';

const SECTIONS = [
  { path: '', label: 'Overview' },
  { path: 'courses', label: 'Courses' },
  { path: 'registrations', label: 'Registrations' },
  { path: 'settings', label: 'Settings' },
  { path: 'xapi', label: 'xAPI' },
  { path: 'invitations', label: 'Invitations' },
  { path: 'jobs', label: 'Jobs' },
  { path: 'audit', label: 'Audit log' },
  { path: 'applications', label: 'Applications', management: true },
] as const;

/** Scopes the console asks CreateToken for: what its sections do, nothing more. */
export const CONSOLE_SCOPES = ['read', 'write', 'delete'];

function currentPath(): { section: string; query: URLSearchParams } {
  const rel = location.pathname.startsWith(basePath) ? location.pathname.slice(basePath.length) : '';
  return { section: rel.replace(/\/$/, ''), query: new URLSearchParams(location.search) };
}

function App() {
  const [session, setSession] = useState<Session | null>(() => {
    const s = loadSession();
    // A report link's token reads reports only: the console needs a key.
    return s && !s.viewer ? s : null;
  });
  const [where, setWhere] = useState(currentPath);
  useEffect(() => {
    const onPop = () => setWhere(currentPath());
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const known = SECTIONS.some((s) => s.path === where.section);
  return (
    <>
      <a class="skip" href="#main">
        Skip to the content
      </a>
      <header class="top">
        <a class="brand" href={basePath}>
          LCDS Console
        </a>
        {session && (
          <nav aria-label="Sections">
            {SECTIONS.filter((s) => !('management' in s) || session.isManagement).map((s) => (
              <a
                href={`${basePath}${s.path}`}
                aria-current={where.section === s.path ? 'page' : undefined}
                onClick={(e) => {
                  e.preventDefault();
                  go(s.path);
                }}
              >
                {s.label}
              </a>
            ))}
            <a href={`${basePath}../reports/`}>Reports</a>
          </nav>
        )}
        <span class="spacer" />
        {session && (
          <>
            <span class="who">Application {session.appId}</span>
            <button
              type="button"
              onClick={() => {
                signOut();
                setSession(null);
              }}
            >
              Sign out
            </button>
          </>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {!session ? (
          <SignInForm scopes={CONSOLE_SCOPES} intro="Sign in with an application's id and one of its secret keys. The console works through the API V2 with a token valid for one hour." onSignedIn={setSession} />
        ) : !known || where.section === '' ? (
          <OverviewSection session={session} />
        ) : where.section === 'courses' ? (
          <CoursesSection session={session} query={where.query} />
        ) : where.section === 'registrations' ? (
          <RegistrationsSection session={session} query={where.query} />
        ) : where.section === 'xapi' ? (
          <XapiSection session={session} />
        ) : where.section === 'invitations' ? (
          <InvitationsSection session={session} />
        ) : where.section === 'jobs' ? (
          <JobsSection session={session} />
        ) : where.section === 'audit' ? (
          <AuditSection session={session} query={where.query} />
        ) : where.section === 'applications' ? (
          <ApplicationsSection session={session} query={where.query} />
        ) : (
          <SettingsSection session={session} query={where.query} />
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
