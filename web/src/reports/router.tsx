import { useEffect, useState } from 'preact/hooks';
import { navAllows, parseViewerPath, viewerPath, type ViewerPage } from '../../../src/modules/reporting/viewer-pages';
import { ApiError, type Session } from '../shared/api';

/** The viewer's own path (PUBLIC_URL/reports/), from the <base href> the server gives the page. */
const basePath = new URL('.', document.baseURI).pathname;

export interface Filters {
  from?: string;
  to?: string;
  courseId?: string;
  learnerId?: string;
  tags?: string;
  /** The registration page: the instance whose activities show. */
  attempt?: string;
}
const FILTER_KEYS: Array<keyof Filters> = ['from', 'to', 'courseId', 'learnerId', 'tags', 'attempt'];

export function currentPage(): ViewerPage | null {
  if (!location.pathname.startsWith(basePath)) return null;
  return parseViewerPath(`/reports/${location.pathname.slice(basePath.length)}`);
}

export function currentFilters(): Filters {
  const q = new URLSearchParams(location.search);
  const f: Filters = {};
  for (const k of FILTER_KEYS) {
    const v = q.get(k);
    if (v) f[k] = v;
  }
  return f;
}

/** The URL of a page with filters (the filters live in the URL, so a link or a reload shows the same report). */
export function pageUrl(page: ViewerPage, filters: Filters = {}): string {
  const q = new URLSearchParams();
  for (const k of FILTER_KEYS) if (filters[k]) q.set(k, filters[k]);
  const qs = q.toString();
  return `${basePath}${viewerPath(page).slice('/reports/'.length)}${qs ? `?${qs}` : ''}`;
}

export function navigate(url: string): void {
  history.pushState(null, '', url);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** What the session may open: everything with a key; a report link, what its navPermission allows from its page. */
export function canOpen(session: Session, page: ViewerPage, ancestry: { courseId?: string; learnerId?: string } = {}): boolean {
  if (!session.viewer) return true;
  const root = parseViewerPath(session.viewer.root);
  return root !== null && navAllows(session.viewer.nav, root, page, ancestry);
}

export function PageLink(props: { session: Session; page: ViewerPage; filters?: Filters; ancestry?: { courseId?: string; learnerId?: string }; children: string }) {
  if (!canOpen(props.session, props.page, props.ancestry)) return <span>{props.children}</span>;
  const href = pageUrl(props.page, props.filters);
  return (
    <a
      href={href}
      onClick={(e) => {
        if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {props.children}
    </a>
  );
}

/** Loads a page's data; null while loading. */
export function useReport<T>(load: () => Promise<T>, deps: unknown[]): { data: T | null; error: string | null } {
  const [state, setState] = useState<{ data: T | null; error: string | null }>({ data: null, error: null });
  useEffect(() => {
    let live = true;
    setState({ data: null, error: null });
    load().then(
      (data) => live && setState({ data, error: null }),
      (err: unknown) => live && setState({ data: null, error: err instanceof ApiError || err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, deps);
  return state;
}

