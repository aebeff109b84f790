import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ViewerPage } from '../../../src/modules/reporting/viewer-pages';
import { loadSession, signOut, type Session } from '../shared/api';
import { Notice, SignInForm } from '../shared/components';
import '../shared/styles.css';
import { ApplicationReport, CourseReport, LearnerReport, RegistrationReport } from './pages';
import { canOpen, currentFilters, currentPage, navigate, pageUrl, type Filters } from './router';

function App() {
  const [session, setSession] = useState<Session | null>(() => loadSession());
  const [page, setPage] = useState<ViewerPage | null>(() => currentPage());
  const [filters, setFilters] = useState<Filters>(() => currentFilters());
  useEffect(() => {
    const onPop = () => {
      setPage(currentPage());
      setFilters(currentFilters());
      window.scrollTo(0, 0);
    };
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);

  const header = (
    <header class="top">
      <a class="brand" href={pageUrl({ kind: 'application' })} onClick={(e) => { if (session && canOpen(session, { kind: 'application' })) { e.preventDefault(); navigate(pageUrl({ kind: 'application' })); } else e.preventDefault(); }}>
        LCDS Reports
      </a>
      <span class="spacer" />
      {session && (
        <>
          <span class="who">
            Application {session.appId}
            {session.viewer ? ` · report link (${session.viewer.nav})` : ''}
          </span>
          <button type="button" onClick={() => { signOut(); setSession(null); }}>
            Sign out
          </button>
        </>
      )}
    </header>
  );

  let body;
  if (!session) {
    body = <SignInForm scopes={['read:reporting']} intro="Open the report viewer with an application's id and one of its secret keys, or open a report link made by GetReportageLink." onSignedIn={setSession} />;
  } else if (!page) {
    body = <Notice kind="error">This is not a page of the report viewer.</Notice>;
  } else if (page.kind !== 'registration' && !canOpen(session, page)) {
    // (A registration's course and learner are known once it loads: the API decides, and the page shows its answer.)
    body = <Notice kind="error">This report link ({session.viewer?.nav}) does not open this page.</Notice>;
  } else {
    const onSetFilters = (f: Filters) => navigate(pageUrl(page, f));
    body =
      page.kind === 'application' ? (
        <ApplicationReport session={session} filters={filters} onFilters={onSetFilters} />
      ) : page.kind === 'course' ? (
        <CourseReport session={session} courseId={page.id} filters={filters} onFilters={onSetFilters} />
      ) : page.kind === 'learner' ? (
        <LearnerReport session={session} learnerId={page.id} filters={filters} onFilters={onSetFilters} />
      ) : (
        <RegistrationReport session={session} registrationId={page.id} filters={filters} onFilters={onSetFilters} />
      );
  }
  return (
    <>
      <a class="skip" href="#main">
        Skip to the report
      </a>
      {header}
      <main id="main" tabIndex={-1}>
        {body}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
