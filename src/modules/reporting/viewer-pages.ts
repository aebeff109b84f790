/** Navigation permissions of a report viewer link (GetReportageAuthToken). */
export const NAV_PERMISSIONS = ['NONAV', 'DOWNONLY', 'FREENAV'] as const;
export type NavPermission = (typeof NAV_PERMISSIONS)[number];

/** A page of the report viewer, as its path under PUBLIC_URL names it. */
export type ViewerPage =
  | { kind: 'application' }
  | { kind: 'course'; id: string }
  | { kind: 'learner'; id: string }
  | { kind: 'registration'; id: string };

const KINDS: Record<string, 'course' | 'learner' | 'registration'> = { courses: 'course', learners: 'learner', registrations: 'registration' };

/** `/reports/`, `/reports/courses/{id}`, `/reports/learners/{id}`, `/reports/registrations/{id}`; null for anything else. */
export function parseViewerPath(path: string): ViewerPage | null {
  if (path === '/reports' || path === '/reports/') return { kind: 'application' };
  const m = /^\/reports\/(courses|learners|registrations)\/([^/]+)\/?$/.exec(path);
  if (!m) return null;
  let id: string;
  try {
    id = decodeURIComponent(m[2]);
  } catch {
    return null;
  }
  return id ? { kind: KINDS[m[1]], id } : null;
}

export function viewerPath(page: ViewerPage): string {
  return page.kind === 'application' ? '/reports/' : `/reports/${page.kind}s/${encodeURIComponent(page.id)}`;
}

/** What a requested page is below: a registration lies below its course and its learner; everything below the application. */
export interface PageAncestry {
  courseId?: string;
  learnerId?: string;
}

/**
 * Whether a link made for `root` with permission `nav` may show `page`. NONAV: the linked page only; DOWNONLY: the
 * linked page and what lies below it (application → course/learner → registration); FREENAV: every page.
 */
export function navAllows(nav: NavPermission, root: ViewerPage, page: ViewerPage, ancestry: PageAncestry = {}): boolean {
  if (nav === 'FREENAV') return true;
  const same = root.kind === page.kind && (root.kind === 'application' || (page.kind !== 'application' && root.id === page.id));
  if (same) return true;
  if (nav === 'NONAV') return false;
  if (root.kind === 'application') return true;
  if (page.kind !== 'registration') return false;
  if (root.kind === 'course') return ancestry.courseId === root.id;
  if (root.kind === 'learner') return ancestry.learnerId === root.id;
  return false;
}
