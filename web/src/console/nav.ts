/** The console's own path (PUBLIC_URL/console/), from the <base href> the server gives the page. */
export const basePath = new URL('.', document.baseURI).pathname;

/** The report viewer's page for a path under /reports/ (`courses/{id}`, `learners/{id}`, …). */
export const reportUrl = (path: string): string => `${basePath}../reports/${path}`;

/** Client-side navigation to a section of the console, with its query (what the section shows lives in the URL). */
export function go(section: string, query: Record<string, string | undefined> = {}): void {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
  const qs = q.toString();
  history.pushState(null, '', `${basePath}${section}${qs ? `?${qs}` : ''}`);
  dispatchEvent(new PopStateEvent('popstate'));
}
