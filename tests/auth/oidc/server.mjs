// A real authorization server for mcptrio's tests: oidc-provider on 127.0.0.1.
//
//   node server.mjs            (listens on a free port; prints "listening <issuer>" once ready)
//
// Clients (client_secret_basic, client credentials grant):
//   alpha / alpha-secret    may ask for mcp:read mcp:write files:read files:write
//   beta / beta-secret      may ask for mcp:read only
//   future / future-secret  mcp:read and test:not-yet (its JWTs are not valid for an hour: nbf)
//   introspector / introspector-secret   the resource server's own credentials (introspection)
//
// Users log in through oidc-provider's built-in pages (devInteractions: any login and password; a
// consent page after), for the authorization code flow of clients that register themselves
// (RFC 7591, native loopback redirects; any port); they get refresh tokens.
//
// Resources (RFC 8707): any http://127.0.0.1:<port>/<path> or http://localhost:<port>/<path> URL.
// The path decides the token: ".../opaque/..." an opaque token (introspect it), ".../short/..." a
// 2-second lifetime, a path ending in "-es" an ES256 JWT; otherwise an RS256 JWT (typ at+jwt,
// aud = the resource) living 300 s.  Keys are made fresh at every start, their kids carrying a
// per-run suffix.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import Provider, { errors } from 'oidc-provider';

const RUN = randomBytes(4).toString('hex');
const SCOPES = ['mcp:read', 'mcp:write', 'files:read', 'files:write', 'test:not-yet'];

function jwk(type, options, kid, alg) {
  const { privateKey } = generateKeyPairSync(type, options);
  return { ...privateKey.export({ format: 'jwk' }), kid: `${kid}-${RUN}`, alg, use: 'sig' };
}

const keys = [jwk('rsa', { modulusLength: 2048 }, 'rs', 'RS256'), jwk('ec', { namedCurve: 'P-256' }, 'es', 'ES256')];

function client(id, scope) {
  return { client_id: id, client_secret: `${id}-secret`, grant_types: ['client_credentials'], response_types: [],
           redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic', ...(scope ? { scope } : {}) };
}

function resourceServer(ctx, indicator) {
  let url;
  try { url = new URL(indicator); } catch { throw new errors.InvalidTarget(); }
  if (url.protocol !== 'http:' || !['127.0.0.1', 'localhost'].includes(url.hostname)) {
    throw new errors.InvalidTarget();
  }
  const opaque = url.pathname.includes('/opaque/');
  return {
    scope: SCOPES.join(' '),
    audience: indicator,
    accessTokenTTL: url.pathname.includes('/short/') ? 2 : 300,
    accessTokenFormat: opaque ? 'opaque' : 'jwt',
    ...(opaque ? {} : { jwt: { sign: { alg: url.pathname.endsWith('-es') ? 'ES256' : 'RS256' } } }),
  };
}

const server = http.createServer();
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [client('alpha', 'mcp:read mcp:write files:read files:write'), client('beta', 'mcp:read'),
              client('future', 'mcp:read test:not-yet'), client('introspector', '')],
    jwks: { keys },
    scopes: [...SCOPES, 'offline_access'],
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      devInteractions: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: resourceServer,
      },
    },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    issueRefreshToken: async (ctx, client) => client.grantTypeAllowed('refresh_token'),
    formats: {
      customizers: {
        jwt(ctx, token, jwt) {
          if (String(token.scope || '').split(' ').includes('test:not-yet')) {
            jwt.payload.nbf = Math.floor(Date.now() / 1000) + 3600;
          }
        },
      },
    },
  });
  provider.proxy = false;
  // RFC 8414 metadata at its own well-known path: the same document as OpenID discovery's.
  provider.use(async (ctx, next) => {
    if (ctx.path === '/.well-known/oauth-authorization-server') ctx.path = '/.well-known/openid-configuration';
    await next();
  });
  server.on('request', provider.callback());
  process.stdout.write(`listening ${issuer}\n`);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
