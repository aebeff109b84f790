import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** RFC 3986 encoding (OAuth 1.0a), written here apart from LCDS's. */
const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

/** An OAuth 1.0a HMAC-SHA1 signature over `url` (no query) and the parameters. */
export function ltiSign(url: string, params: Record<string, string>, secret: string, method = 'POST'): string {
  const pairs = Object.entries(params)
    .filter(([k]) => k !== 'oauth_signature')
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .sort();
  const base = [method, enc(url), enc(pairs.join('&'))].join('&');
  return createHmac('sha1', `${enc(secret)}&`).update(base).digest('base64');
}

/** The form fields of a signed LTI 1.1 basic launch. */
export function signedLaunch(url: string, key: string, secret: string, fields: Record<string, string>, options: { timestamp?: number; nonce?: string } = {}): Record<string, string> {
  const params: Record<string, string> = {
    lti_message_type: 'basic-lti-launch-request',
    lti_version: 'LTI-1p0',
    oauth_consumer_key: key,
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(options.timestamp ?? Math.floor(Date.now() / 1000)),
    oauth_nonce: options.nonce ?? randomBytes(12).toString('hex'),
    oauth_version: '1.0',
    ...fields,
  };
  return { ...params, oauth_signature: ltiSign(url, params, secret) };
}

export interface ReceivedOutcome {
  sourcedId: string;
  score: number;
  signatureValid: boolean;
  bodyHashValid: boolean;
}

/**
 * A test LTI 1.1 platform (consumer) on its own origin: `/launch?…` serves a page that auto-submits a signed launch
 * form to the tool (as an LMS does), and `/outcomes` is its Basic Outcomes service, which checks the tool's OAuth
 * signature and body hash with the consumer's secret and records each replaceResult.
 */
export interface LtiPlatform {
  origin: string;
  outcomes: ReceivedOutcome[];
  configure(tool: { url: string; key: string; secret: string }): void;
  launchPageUrl(user: { id: string; given?: string; family?: string; sourcedId?: string }): string;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

export async function startLtiPlatform(): Promise<LtiPlatform> {
  let tool = { url: '', key: '', secret: '' };
  const outcomes: ReceivedOutcome[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      if (url.pathname === '/launch') {
        const fields = signedLaunch(tool.url, tool.key, tool.secret, {
          resource_link_id: 'link-1',
          user_id: url.searchParams.get('user') ?? '',
          lis_person_name_given: url.searchParams.get('given') ?? '',
          lis_person_name_family: url.searchParams.get('family') ?? '',
          lis_outcome_service_url: `${origin}/outcomes`,
          lis_result_sourcedid: url.searchParams.get('sourcedId') ?? 'result-1',
          roles: 'Learner',
        });
        const inputs = Object.entries(fields)
          .map(([k, v]) => `<input type="hidden" name="${k}" value="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`)
          .join('');
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<!doctype html><html><body><form id="f" method="post" action="${tool.url}">${inputs}</form><script>document.getElementById('f').submit();</script></body></html>`);
        return;
      }
      if (url.pathname === '/outcomes' && req.method === 'POST') {
        const body = await readBody(req);
        const header = String(req.headers.authorization ?? '');
        const oauth = Object.fromEntries([...header.replace(/^OAuth\s+/, '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], decodeURIComponent(m[2])]));
        const signatureValid = oauth.oauth_consumer_key === tool.key && ltiSign(`${origin}/outcomes`, oauth, tool.secret) === oauth.oauth_signature;
        const bodyHashValid = createHash('sha1').update(body).digest('base64') === oauth.oauth_body_hash;
        const sourcedId = /<sourcedId>([^<]*)<\/sourcedId>/.exec(body)?.[1] ?? '';
        const score = Number(/<textString>([^<]*)<\/textString>/.exec(body)?.[1]);
        outcomes.push({ sourcedId, score, signatureValid, bodyHashValid });
        res.writeHead(signatureValid && bodyHashValid ? 200 : 401, { 'content-type': 'application/xml' });
        res.end(
          `<?xml version="1.0" encoding="UTF-8"?><imsx_POXEnvelopeResponse xmlns="http://www.imsglobal.org/services/ltiv1p1/xsd/imsoms_v1p0"><imsx_POXHeader><imsx_POXResponseHeaderInfo><imsx_version>V1.0</imsx_version><imsx_messageIdentifier>r</imsx_messageIdentifier><imsx_statusInfo><imsx_codeMajor>${signatureValid && bodyHashValid ? 'success' : 'failure'}</imsx_codeMajor><imsx_severity>status</imsx_severity></imsx_statusInfo></imsx_POXResponseHeaderInfo></imsx_POXHeader><imsx_POXBody><replaceResultResponse/></imsx_POXBody></imsx_POXEnvelopeResponse>`,
        );
        return;
      }
      res.writeHead(404).end();
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    outcomes,
    configure: (t) => void (tool = t),
    launchPageUrl: (u) => `${origin}/launch?${new URLSearchParams({ user: u.id, given: u.given ?? '', family: u.family ?? '', sourcedId: u.sourcedId ?? `result-${u.id}` })}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
