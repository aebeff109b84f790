/**
 * The pages call LCDS's API V2 like any client: a bearer token (from a report link's fragment, or from
 * CreateToken signed in with an application's id and secret key), kept in this tab's sessionStorage.
 */

/** PUBLIC_URL as the page sees it: the server gives every page a <base href> of PUBLIC_URL/<app>/. */
export const siteRoot = new URL('..', document.baseURI).toString();
export const apiBase = `${siteRoot}api/v2`;

export interface Session {
  token: string;
  appId: string;
  expiresAt: number;
  /** A report link's limits (absent when signed in with a key). */
  viewer?: { nav: 'NONAV' | 'DOWNONLY' | 'FREENAV'; root: string; admin: boolean };
  scopes: string[];
  /** Signed in with a management application's key (Application Management operations). */
  isManagement: boolean;
}

const KEY = 'lcds.session';

/** Reads a JWT's claims (the server checks its signature; the page only needs to know what it may show). */
export function sessionOf(token: string): Session | null {
  try {
    const part = token.split('.')[1];
    const claims = JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))) as { sub: string; exp: number; scope?: string; mgmt?: boolean; viewer?: Session['viewer'] };
    return {
      token,
      appId: claims.sub,
      expiresAt: claims.exp * 1000,
      scopes: (claims.scope ?? '').split(' ').filter(Boolean),
      isManagement: claims.mgmt === true,
      ...(claims.viewer ? { viewer: claims.viewer } : {}),
    };
  } catch {
    return null;
  }
}

export function loadSession(): Session | null {
  // A report link carries its token in the fragment; it replaces any earlier session of this tab.
  const hash = new URLSearchParams(location.hash.slice(1));
  const fromLink = hash.get('token');
  if (fromLink) {
    history.replaceState(history.state, '', location.pathname + location.search);
    const s = sessionOf(fromLink);
    if (s) {
      sessionStorage.setItem(KEY, fromLink);
      return s;
    }
  }
  const stored = sessionStorage.getItem(KEY);
  const s = stored ? sessionOf(stored) : null;
  if (s && s.expiresAt > Date.now()) return s;
  sessionStorage.removeItem(KEY);
  return null;
}

export function saveSession(token: string): Session | null {
  sessionStorage.setItem(KEY, token);
  return sessionOf(token);
}

export function signOut(): void {
  sessionStorage.removeItem(KEY);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Signs in with an application's id and secret key: CreateToken (documented, basic auth) for the given scopes. */
export async function signIn(appId: string, secretKey: string, scopes: string[], seconds = 3600): Promise<Session> {
  const expiry = new Date(Date.now() + seconds * 1000).toISOString();
  const res = await fetch(`${apiBase}/appManagement/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${btoa(`${appId}:${secretKey}`)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ permissions: { scopes }, expiry }),
  });
  if (!res.ok) throw new ApiError(res.status, res.status === 401 ? 'The application id or secret key is not right.' : await messageOf(res));
  const { result } = (await res.json()) as { result: string };
  const s = saveSession(result);
  if (!s) throw new ApiError(500, 'The service answered a token this page cannot read.');
  return s;
}

async function messageOf(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { message?: string };
    return body.message ?? `${res.status} ${res.statusText}`;
  } catch {
    return `${res.status} ${res.statusText}`;
  }
}

/** A JSON call with the session's token; errors become ApiError with the service's message. */
export async function api<T>(session: Session, path: string, init: { method?: string; body?: unknown; query?: Record<string, string | undefined> } = {}): Promise<T> {
  const url = new URL(`${apiBase}${path}`);
  for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, v);
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${session.token}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  if (res.status === 401) throw new ApiError(401, 'Your session has ended. Open the report link again, or sign in.');
  if (!res.ok) throw new ApiError(res.status, await messageOf(res));
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** An activity of a registration's tree as the API answers it (ActivityResultSchema), for the viewer and the console. */
export interface Activity {
  id: string;
  title: string;
  attempts: number;
  activityCompletion: string;
  activitySuccess: string;
  score?: { scaled?: number };
  timeTracked?: string;
  suspended?: boolean;
  children?: Activity[];
  runtime?: { runtimeInteractions?: Array<Record<string, string>>; completionStatus?: string; scoreScaled?: string; totalTime?: string; location?: string };
}
