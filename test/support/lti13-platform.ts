import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT, type KeyLike } from 'jose';

export interface Lti13Tool {
  oidcLoginInitiationsUrl: string;
  redirectUri: string;
  jsonWebKeySetUrl: string;
  targetLinkUri: string;
}

export interface ReceivedScore {
  userId: string;
  scoreGiven: number;
  scoreMaximum: number;
  activityProgress: string;
  gradingProgress: string;
}

/**
 * A test LTI 1.3 platform on its own origin, with its own RS256 key pair (JWKS at /jwks): /start begins a launch
 * (third-party login initiation at the tool), /auth is its OIDC authorization endpoint (answers with an auto-posted
 * id_token), /token its OAuth2 token endpoint (checks the tool's client assertion against the tool's JWKS), and
 * /lineitems/1/scores its AGS scores service.
 */
export interface Lti13Platform {
  origin: string;
  clientId: string;
  deploymentId: string;
  scores: ReceivedScore[];
  assertionsChecked: number;
  configure(tool: Lti13Tool): void;
  startUrl(user: string): string;
  idToken(claims: Record<string, unknown>, options?: { key?: KeyLike; kid?: string; expiresIn?: string; audience?: string; issuedAt?: number }): Promise<string>;
  launchClaims(user: string, nonce: string): Record<string, unknown>;
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

export async function startLti13Platform(): Promise<Lti13Platform> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'platform-key-1', alg: 'RS256', use: 'sig' };
  const clientId = 'lcds-client-1';
  const deploymentId = 'deployment-1';
  const tokens = new Set<string>();
  let tool: Lti13Tool | null = null;
  let origin = '';
  const platform: Lti13Platform = {
    origin: '',
    clientId,
    deploymentId,
    scores: [],
    assertionsChecked: 0,
    configure: (t) => void (tool = t),
    startUrl: (user) => `${origin}/start?user=${encodeURIComponent(user)}`,
    launchClaims: (user, nonce) => ({
      nonce,
      given_name: 'Grace',
      family_name: 'Hopper',
      'https://purl.imsglobal.org/spec/lti/claim/message_type': 'LtiResourceLinkRequest',
      'https://purl.imsglobal.org/spec/lti/claim/version': '1.3.0',
      'https://purl.imsglobal.org/spec/lti/claim/deployment_id': deploymentId,
      'https://purl.imsglobal.org/spec/lti/claim/target_link_uri': tool!.targetLinkUri,
      'https://purl.imsglobal.org/spec/lti/claim/resource_link': { id: 'link-1' },
      'https://purl.imsglobal.org/spec/lti/claim/roles': ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'],
      'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint': { scope: ['https://purl.imsglobal.org/spec/lti-ags/scope/score'], lineitem: `${origin}/lineitems/1` },
      sub: user,
    }),
    idToken: (claims, options = {}) => {
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? jwk.kid })
        .setIssuer(origin)
        .setAudience(options.audience ?? clientId)
        .setIssuedAt(options.issuedAt)
        .setExpirationTime(options.expiresIn ?? '5m');
      return jwt.sign(options.key ?? privateKey);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      if (url.pathname === '/jwks') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
      } else if (url.pathname === '/start') {
        const login = new URL(tool!.oidcLoginInitiationsUrl);
        login.search = new URLSearchParams({ iss: origin, login_hint: url.searchParams.get('user') ?? '', target_link_uri: tool!.targetLinkUri, client_id: clientId, lti_deployment_id: deploymentId, lti_message_hint: 'hint-1' }).toString();
        res.writeHead(302, { location: login.toString() }).end();
      } else if (url.pathname === '/auth') {
        const q = url.searchParams;
        if (q.get('redirect_uri') !== tool!.redirectUri || q.get('client_id') !== clientId || q.get('response_mode') !== 'form_post' || q.get('scope') !== 'openid') {
          res.writeHead(400).end('bad authorization request');
          return;
        }
        const idToken = await platform.idToken(platform.launchClaims(q.get('login_hint') ?? '', q.get('nonce') ?? ''));
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          `<!doctype html><html><body><form id="f" method="post" action="${tool!.redirectUri}"><input type="hidden" name="id_token" value="${idToken}"><input type="hidden" name="state" value="${q.get('state')}"></form><script>document.getElementById('f').submit();</script></body></html>`,
        );
      } else if (url.pathname === '/token' && req.method === 'POST') {
        const form = new URLSearchParams(await readBody(req));
        try {
          const { payload } = await jwtVerify(form.get('client_assertion') ?? '', createRemoteJWKSet(new URL(tool!.jsonWebKeySetUrl)), { issuer: clientId, subject: clientId, audience: `${origin}/token` });
          if (!payload.jti || form.get('grant_type') !== 'client_credentials') throw new Error('bad grant');
          platform.assertionsChecked++;
          const token = randomUUID();
          tokens.add(token);
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600, scope: form.get('scope') }));
        } catch {
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_client' }));
        }
      } else if (url.pathname === '/lineitems/1/scores' && req.method === 'POST') {
        const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
        if (!tokens.has(token) || req.headers['content-type'] !== 'application/vnd.ims.lis.v1.score+json') {
          res.writeHead(401).end();
          return;
        }
        platform.scores.push(JSON.parse(await readBody(req)) as ReceivedScore);
        res.writeHead(200).end();
      } else {
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  platform.origin = origin;
  return platform;
}
