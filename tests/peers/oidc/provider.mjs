// The test identity provider: the real npm `oidc-provider` (panva) on
// loopback HTTPS, configured for the runai CLI's login flows. Tests only.
//
//   node provider.mjs --state-dir DIR [--port N] [--token-ttl SECONDS]
//                     [--short] [--users FILE] [--foreign-jwks]
//
// DIR must hold server.crt / server.key (signed by DIR/ca.crt), which
// tests/peers/oidc-peer makes with openssl. Port 0 (the default) takes a
// free port. Once serving, DIR/ready.json is written atomically:
//   {"issuer", "port", "pid", "ca", "client_id", "log"}
// Events are logged to stdout (oidc-peer sends it to DIR/provider.log).
//
// Client `runai-cli`: public (no secret), PKCE S256 required, native
// application type, so http://127.0.0.1/callback matches any loopback port
// (RFC 8252). Grants: authorization_code, refresh_token (rotating),
// device_code and a resource-owner password grant. Client `runai-cli-sso`:
// public, no PKCE, redirect <issuer>/oauth-code only (the copy-paste flow;
// that page shows the code). ID and access tokens live --token-ttl
// seconds (default $OIDC_TOKEN_TTL or 60; --short makes it 5).
// --foreign-jwks publishes another key under the signing key's kid, so
// every token this provider issues fails signature checks (tests of the
// client's id-token verification).
//
// Logging in without a browser: GET <interaction url> shows a form;
// POST it login=<user>&password=<pw> (or username=). Consent is granted
// automatically when the consent interaction is fetched (or POSTed);
// POST action=abort denies (access_denied).
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import Provider, { errors } from 'oidc-provider';

function usage(msg) {
  if (msg) console.error(`provider.mjs: ${msg}`);
  console.error('usage: node provider.mjs --state-dir DIR [--port N] [--token-ttl S] [--short] [--users FILE] [--foreign-jwks]');
  process.exit(2);
}

const opt = { port: 0, ttl: Number(process.env.OIDC_TOKEN_TTL || 60) };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const val = () => { if (i + 1 >= argv.length) usage(`${a} needs a value`); return argv[++i]; };
  if (a === '--state-dir') opt.dir = val();
  else if (a === '--port') opt.port = Number(val());
  else if (a === '--token-ttl') opt.ttl = Number(val());
  else if (a === '--short') opt.ttl = 5;
  else if (a === '--users') opt.users = val();
  else if (a === '--foreign-jwks') opt.foreignJwks = true;
  else usage(`unknown option ${a}`);
}
if (!opt.dir) usage('--state-dir is required');
if (!Number.isInteger(opt.ttl) || opt.ttl < 1) usage('bad token ttl');

const log = (...a) => console.log(new Date().toISOString(), ...a);

// Test users. Passwords are deliberately simple; carol's email is not
// verified (kube-apiserver refuses such tokens with --oidc-username-claim=email).
let USERS = {
  alice: { password: 'alice-pw', email: 'alice@example.test', email_verified: true, name: 'Alice Example', groups: ['team-a'] },
  bob: { password: 'bob-pw', email: 'bob@example.test', email_verified: true, name: 'Bob Example', groups: ['team-b'] },
  carol: { password: 'carol-pw', email: 'carol@example.test', email_verified: false, name: 'Carol Example', groups: [] },
};
if (opt.users) USERS = JSON.parse(fs.readFileSync(opt.users, 'utf8'));

async function findAccount(_ctx, id) {
  const u = USERS[id];
  if (!u) return undefined;
  return {
    accountId: id,
    async claims() {
      return { sub: id, email: u.email, email_verified: u.email_verified, name: u.name, preferred_username: id, groups: u.groups };
    },
  };
}

// A fresh signing key per start, with its own kid: tokens of one run are
// never valid in another (the library's development key is shared by all).
const jwk = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
jwk.kid = crypto.randomBytes(8).toString('hex');
jwk.use = 'sig';
jwk.alg = 'RS256';
// What /jwks shows with --foreign-jwks: a key nobody signs with, same kid.
const foreignJwk = (() => {
  const k = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
  return { ...k, kid: jwk.kid, use: 'sig', alg: 'RS256' };
})();

const tls = {
  cert: fs.readFileSync(path.join(opt.dir, 'server.crt')),
  key: fs.readFileSync(path.join(opt.dir, 'server.key')),
};
const server = https.createServer(tls);
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(opt.port, '127.0.0.1', resolve);
});
const port = server.address().port;
const issuer = `https://127.0.0.1:${port}`;
const COPY_PASTE_URI = `${issuer}/oauth-code`;
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const oidc = new Provider(issuer, {
  findAccount,
  jwks: { keys: [jwk] },
  cookies: { keys: [crypto.randomBytes(16).toString('hex')] },
  clients: [{
    client_id: 'runai-cli',
    token_endpoint_auth_method: 'none',
    application_type: 'native',
    grant_types: ['authorization_code', 'refresh_token', DEVICE_GRANT, 'password'],
    response_types: ['code'],
    redirect_uris: ['http://127.0.0.1/callback', 'http://[::1]/callback'],
  }, {
    // The copy-paste ("remote-browser") flow: a web redirect to the page
    // that shows the code. Public too, and without PKCE, as the real CLI.
    client_id: 'runai-cli-sso',
    token_endpoint_auth_method: 'none',
    application_type: 'web',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: [COPY_PASTE_URI],
  }],
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  features: {
    devInteractions: { enabled: false },
    deviceFlow: { enabled: true },
    revocation: { enabled: true },
    introspection: { enabled: true },
  },
  scopes: ['openid', 'email', 'profile', 'groups', 'offline_access'],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name', 'preferred_username'],
    groups: ['groups'],
  },
  conformIdTokenClaims: false, // email and groups in the ID token, as kube-apiserver reads them
  // PKCE for every client but the copy-paste one (the real CLI sends none there).
  pkce: { required: (_ctx, client) => client.clientId !== 'runai-cli-sso' },
  rotateRefreshToken: true,
  ttl: {
    AccessToken: opt.ttl,
    IdToken: opt.ttl,
    AuthorizationCode: 60,
    RefreshToken: 3600,
    DeviceCode: 600,
    Interaction: 600,
    Session: 3600,
    Grant: 3600,
  },
});

const oidc_scopes = new Set(['openid', 'email', 'profile', 'groups', 'offline_access']);

// Resource-owner password grant (what Keycloak's and Auth0's `cli` flow use).
oidc.registerGrantType('password', async (ctx) => {
  const { username, password } = ctx.oidc.params;
  const scope = ctx.oidc.params.scope || 'openid';
  const u = USERS[username];
  if (!u || u.password !== password) {
    log('password grant: invalid credentials for', JSON.stringify(username));
    throw new errors.InvalidGrant('invalid credentials');
  }
  const { client, provider } = ctx.oidc;
  const scopes = scope.split(' ').filter((s) => s && oidc_scopes.has(s));
  const granted = scopes.join(' ');
  const grant = new provider.Grant({ accountId: username, clientId: client.clientId });
  grant.addOIDCScope(granted);
  const grantId = await grant.save();
  const at = new provider.AccessToken({ accountId: username, client, grantId, scope: granted, gty: 'password' });
  const body = { access_token: await at.save(), token_type: 'Bearer', expires_in: at.expiration, scope: granted };
  if (scopes.includes('offline_access')) {
    const rt = new provider.RefreshToken({ accountId: username, client, grantId, scope: granted, gty: 'password' });
    body.refresh_token = await rt.save();
  }
  if (scopes.includes('openid')) {
    const account = await findAccount(ctx, username);
    const idt = new provider.IdToken({ ...(await account.claims()) }, { ctx });
    idt.scope = granted;
    body.id_token = await idt.issue({ use: 'idtoken' });
  }
  log('password grant: issued tokens for', username, 'scope', granted);
  ctx.body = body;
}, ['username', 'password', 'scope']);

for (const ev of ['server_error', 'grant.error', 'authorization.error', 'end_session.error', 'userinfo.error', 'introspection.error', 'revocation.error']) {
  oidc.on(ev, (_ctx, err) => log(ev, err && (err.stack || err.message), err && err.error_description || ''));
}
// grant.success names the grant type, so tests can count refreshes:
//   grep -c 'grant.success refresh_token' provider.log
oidc.on('grant.success', (ctx) => log('grant.success', ctx.oidc?.params?.grant_type || ''));
for (const ev of ['grant.revoked', 'interaction.started', 'interaction.ended']) {
  oidc.on(ev, () => log(ev));
}

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
function page(res, status, title, body) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(`<!DOCTYPE html><html><head><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1>${body}</body></html>\n`);
}
function readForm(req) {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (c) => { data += c; if (data.length > 65536) req.destroy(); });
    req.on('end', () => resolve(Object.fromEntries(new URLSearchParams(data))));
    req.on('error', reject);
  });
}

async function grantConsent(details) {
  const { prompt, params, session } = details;
  const grant = details.grantId
    ? await oidc.Grant.find(details.grantId)
    : new oidc.Grant({ accountId: session.accountId, clientId: params.client_id });
  const d = prompt.details || {};
  if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
  if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
  if (d.missingResourceScopes) {
    for (const [indicator, s] of Object.entries(d.missingResourceScopes)) grant.addResourceScope(indicator, s.join(' '));
  }
  return { consent: { grantId: await grant.save() } };
}

async function interaction(req, res, uid) {
  let details;
  try {
    details = await oidc.interactionDetails(req, res);
  } catch (e) {
    log('interaction', uid, 'not found:', e.message);
    return page(res, 400, 'Interaction not found', `<p>${esc(e.message)}</p>`);
  }
  if (details.uid !== uid) return page(res, 400, 'Interaction mismatch', '');
  const { prompt, params } = details;
  const form = req.method === 'POST' ? await readForm(req) : {};
  if (form.action === 'abort') {
    log('interaction', uid, 'aborted');
    return oidc.interactionFinished(req, res, { error: 'access_denied', error_description: 'End-User aborted interaction' }, { mergeWithLastSubmission: false });
  }
  if (prompt.name === 'consent') {
    log('interaction', uid, 'consent granted for', details.session?.accountId, 'scope', params.scope);
    return oidc.interactionFinished(req, res, await grantConsent(details), { mergeWithLastSubmission: true });
  }
  if (prompt.name !== 'login') return page(res, 400, `Unsupported prompt ${prompt.name}`, '');
  if (req.method === 'POST') {
    const user = form.login ?? form.username;
    const u = USERS[user];
    if (u && u.password === form.password) {
      log('interaction', uid, 'login ok for', user);
      return oidc.interactionFinished(req, res, { login: { accountId: user } }, { mergeWithLastSubmission: false });
    }
    log('interaction', uid, 'login failed for', JSON.stringify(user));
    res.statusCode = 401;
  }
  return page(res, res.statusCode === 401 ? 401 : 200, 'Sign in',
    `${res.statusCode === 401 ? '<p id="error">Invalid username or password.</p>' : ''}`
    + `<p>Client: ${esc(params.client_id)}; scope: ${esc(params.scope)}</p>`
    + `<form method="post" action="/interaction/${esc(uid)}">`
    + '<input name="login" placeholder="username"> <input name="password" type="password" placeholder="password">'
    + ' <button type="submit">Sign in</button></form>'
    + `<form method="post" action="/interaction/${esc(uid)}"><input type="hidden" name="action" value="abort"><button type="submit">Cancel</button></form>`);
}

// The copy-paste flow's redirect target: shows the code for the user to paste.
function oauthCode(res, url) {
  const code = url.searchParams.get('code');
  if (!code) {
    return page(res, 400, 'Login failed', `<p id="error">${esc(url.searchParams.get('error') || 'no code')}: ${esc(url.searchParams.get('error_description') || '')}</p>`);
  }
  return page(res, 200, 'Verification code', `<p>Paste this code into the CLI:</p><pre id="code">${esc(code)}</pre>`);
}

const handler = oidc.callback();
server.on('request', (req, res) => {
  const url = new URL(req.url, issuer);
  const m = /^\/interaction\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
  if (m && (req.method === 'GET' || req.method === 'POST')) {
    interaction(req, res, m[1]).catch((e) => {
      log('interaction error', e.stack || e);
      if (!res.headersSent) page(res, 500, 'Error', `<p>${esc(e.message)}</p>`);
    });
    return;
  }
  if (url.pathname === '/oauth-code' && req.method === 'GET') return oauthCode(res, url);
  if (opt.foreignJwks && url.pathname === '/jwks') {
    res.setHeader('Content-Type', 'application/jwk-set+json; charset=utf-8');
    return res.end(JSON.stringify({ keys: [foreignJwk] }));
  }
  return handler(req, res);
});

const ready = {
  issuer, port, pid: process.pid, ca: path.resolve(opt.dir, 'ca.crt'), client_id: 'runai-cli',
  token_ttl: opt.ttl, log: path.resolve(opt.dir, 'provider.log'),
};
const tmp = path.join(opt.dir, `.ready.json.${process.pid}`);
fs.writeFileSync(tmp, `${JSON.stringify(ready)}\n`);
fs.renameSync(tmp, path.join(opt.dir, 'ready.json'));
log('listening', issuer, 'token ttl', opt.ttl, 'node', process.version);

const stop = (sig) => { log('stopping on', sig); server.close(); server.closeAllConnections?.(); process.exit(0); };
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
