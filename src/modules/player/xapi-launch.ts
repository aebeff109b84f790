/**
 * The TinCan launch convention (Rustici's "Launch" document of the xAPI launch specification): the content of an
 * xAPI package is opened with its LRS and learner on the query string, and talks to the LRS itself.
 */
/** An xAPI Agent identified by an account. */
export interface XapiAccountAgent {
  objectType: 'Agent';
  name?: string;
  account: { homePage: string; name: string };
}

/** The learner as an xAPI Agent: an account on this service (as the launch statements of SCORM courses name them). */
export function xapiLearnerActor(publicUrl: string, learner: { id: string; name: string }): XapiAccountAgent {
  return { objectType: 'Agent', ...(learner.name ? { name: learner.name } : {}), account: { homePage: publicUrl, name: learner.id } };
}

/**
 * Launch parameters as a query string, each value percent-encoded with encodeURIComponent (a space is `%20`, never
 * `+`): content reads them with decodeURIComponent (ADL's xAPIWrapper, Lectora, many cmi5 AUs), which leaves a `+`
 * as it is, so `auth=Basic+…` would reach the LRS as `Basic+…` and `Fresh,+Fay` would name the learner.
 */
export function launchParameters(params: Record<string, string>): string {
  return Object.entries(params)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
}

/** The query string (without `?`) of a TinCan launch: endpoint, auth, actor, registration, activity_id. */
export function xapiLaunchQuery(p: { endpoint: string; auth: string; actor: XapiAccountAgent; registration: string; activityId: string }): string {
  return launchParameters({ endpoint: p.endpoint, auth: p.auth, actor: JSON.stringify(p.actor), registration: p.registration, activity_id: p.activityId });
}
