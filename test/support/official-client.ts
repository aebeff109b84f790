/**
 * Driving the official SCORM Cloud API V2 JavaScript client (@rusticisoftware/scormcloud-api-v2-client-javascript v3,
 * callback-based, superagent 3.7) from tests: promisified calls, error capture and client construction.
 */

// The client ships no type declarations.
export const sc: any = require('@rusticisoftware/scormcloud-api-v2-client-javascript');

export interface ClientError extends Error {
  status?: number;
  response?: { body: any; text?: string; headers: Record<string, string> };
}

export interface ClientAuth {
  normal?: [string, string];
  management?: [string, string];
  bearer?: string;
}

export interface Clients {
  apiClient: any;
  ping: any;
  about: any;
  auth: any;
  mgmt: any;
  course: any;
}

/** Calls a callback-style client operation; resolves its data and the raw superagent response. */
export function invoke<T = any>(api: any, method: string, ...args: unknown[]): Promise<{ data: T; response: any }> {
  return new Promise((resolve, reject) => {
    api[method](...args, (error: ClientError | null, data: T, response: any) => (error ? reject(error) : resolve({ data, response })));
  });
}

export async function op<T = any>(api: any, method: string, ...args: unknown[]): Promise<T> {
  return (await invoke<T>(api, method, ...args)).data;
}

export async function failure(api: any, method: string, ...args: unknown[]): Promise<ClientError> {
  try {
    await invoke(api, method, ...args);
  } catch (error) {
    return error as ClientError;
  }
  throw new Error(`${method} was expected to fail`);
}

/**
 * The JSON body of an error answer. Operations whose return type is 'Blob' (GetCourseAsset, GetCourseZip, …) set
 * superagent's responseType, so even an error body arrives as a Buffer, not parsed.
 */
export function errorBody(error: ClientError): any {
  const body = error.response?.body;
  if (Buffer.isBuffer(body)) return JSON.parse(body.toString('utf8'));
  return body;
}

/** An ApiClient pointed at `basePath` with the given credentials, and the API objects the tests use. */
export function createClients(basePath: string, auth: ClientAuth): Clients {
  const apiClient = new sc.ApiClient();
  apiClient.basePath = basePath;
  if (auth.normal) Object.assign(apiClient.authentications.APP_NORMAL, { username: auth.normal[0], password: auth.normal[1] });
  if (auth.management) Object.assign(apiClient.authentications.APP_MANAGEMENT, { username: auth.management[0], password: auth.management[1] });
  if (auth.bearer) apiClient.authentications.OAUTH.accessToken = auth.bearer;
  return {
    apiClient,
    ping: new sc.PingApi(apiClient),
    about: new sc.AboutApi(apiClient),
    auth: new sc.AuthenticationApi(apiClient),
    mgmt: new sc.ApplicationManagementApi(apiClient),
    course: new sc.CourseApi(apiClient),
  };
}
