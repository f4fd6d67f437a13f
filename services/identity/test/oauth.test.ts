import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { CallerContext } from '@mp/grpc';
import { ADMIN, anon, rejection, startTestIdentity, system, type TestIdentity } from './support.js';

const REDIRECT = 'https://partner.example.com/oauth/callback';

describe('identity: OAuth 2.0 authorization code', () => {
  let t: TestIdentity;
  let admin: CallerContext;
  let confidential: { id: string; secret: string };
  let publicClient: string;

  const begin = (over: Record<string, string | undefined> = {}) =>
    t.client.beginAuthorization(
      { environment: 'live', clientId: confidential.id, redirectUri: REDIRECT, responseType: 'code', scope: 'project:read data:read', state: 'xyz', ...over },
      anon(),
    );
  const allow = async (step: Awaited<ReturnType<typeof begin>>, username = ADMIN.username, password = ADMIN.password) =>
    t.client.completeAuthorization(
      { environment: 'live', requestId: step.prompt!.requestId, csrfToken: step.prompt!.csrfToken, decision: 'allow', username, password, clientAddress: '' },
      anon(),
    );
  const codeOf = (location: string) => new URL(location).searchParams.get('code')!;
  const exchange = (code: string, over: Record<string, string | undefined> = {}) =>
    t.client.exchangeToken(
      {
        environment: 'live',
        grantType: 'authorization_code',
        clientId: confidential.id,
        clientSecret: confidential.secret,
        code,
        redirectUri: REDIRECT,
        ...over,
      },
      anon(),
    );
  const checkToken = (accessToken: string) => {
    const c = decodeJwt(accessToken) as { sid: string; sub: string; tid: string; scope: string; client_id?: string };
    return t.client.checkSession(
      { sessionId: c.sid, userId: c.sub, tenantId: c.tid, environment: 'live', scope: c.scope.split(' '), ...(c.client_id ? { clientId: c.client_id } : {}) },
      anon(),
    );
  };
  const pkce = () => {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  };

  beforeAll(async () => {
    t = await startTestIdentity();
    admin = await t.adminContext();
    const c = await t.client.createOAuthClient({ name: 'Partner dashboard', redirectUris: [REDIRECT], clientType: 'confidential' }, admin);
    confidential = { id: c.client!.id, secret: c.clientSecret! };
    publicClient = (await t.client.createOAuthClient({ name: 'Field app', redirectUris: ['http://127.0.0.1:7777/cb'], clientType: 'public' }, admin)).client!
      .id;
  });
  afterAll(() => t?.stop());
  afterEach(() => t?.clock.reset());

  describe('client registration', () => {
    it('registers a confidential client with a secret shown once and stored as its SHA-256, and a public client without one', async () => {
      expect(confidential.id).toMatch(/^cli_[0-9a-z]{20}$/);
      expect(confidential.secret).toMatch(/^[A-Za-z0-9]{40}$/);
      const [row] = await t.sql<Record<string, unknown>>('SELECT * FROM identity.oauth_clients WHERE id = $1', [confidential.id]);
      expect(row!.secret_hash).toBe(createHash('sha256').update(confidential.secret).digest('hex'));
      expect(JSON.stringify(row)).not.toContain(confidential.secret);
      const listed = await t.client.listOAuthClients({ page: { limit: 20, cursor: '' } }, admin);
      expect(listed.items.map((c) => c.id)).toEqual([publicClient, confidential.id]);
      expect(listed.items[1]).toMatchObject({ name: 'Partner dashboard', clientType: 'confidential', redirectUris: [REDIRECT], environment: 'live' });
      expect(JSON.stringify(listed)).not.toContain(confidential.secret);
      expect((await t.client.listOAuthClients({ page: { limit: 20, cursor: '' } }, { ...admin, environment: 'sandbox' })).items).toEqual([]);
    });

    it('validates name, type and redirect URIs (HTTPS or loopback HTTP, no fragment) and stores nothing when refused', async () => {
      const create = (over: Record<string, unknown>) =>
        rejection(t.client.createOAuthClient({ name: 'bad', redirectUris: [REDIRECT], clientType: 'confidential', ...over } as never, admin));
      expect(await create({ redirectUris: [] })).toMatchObject({ code: '422101', field: 'redirect_uris' });
      expect(await create({ redirectUris: [REDIRECT, 'http://partner.example.com/cb'] })).toMatchObject({ code: '422103', field: 'redirect_uris[1]' });
      expect(await create({ redirectUris: ['https://partner.example.com/cb#frag'] })).toMatchObject({ code: '422103', field: 'redirect_uris[0]' });
      expect(await create({ redirectUris: ['not a url'] })).toMatchObject({ code: '400004', field: 'redirect_uris[0]' });
      expect(await create({ clientType: 'spa' })).toMatchObject({ code: '422103', field: 'client_type' });
      expect(await create({ name: ' ' })).toMatchObject({ code: '422101', field: 'name' });
      expect(await t.sql("SELECT id FROM identity.oauth_clients WHERE name = 'bad'")).toEqual([]);
    });

    it('refuses registration when the tenant plan does not license OAuth (403004)', async () => {
      await t.client.upsertPlan({ name: 'no-oauth', features: ['sandbox'], limits: undefined }, system());
      await t.client.setTenantPlan({ tenantId: admin.tenantId, plan: 'no-oauth' }, system());
      try {
        expect(await rejection(t.client.createOAuthClient({ name: 'x', redirectUris: [REDIRECT], clientType: 'confidential' }, admin))).toMatchObject({
          code: '403004',
        });
        expect(await rejection(begin())).toMatchObject({ code: '403004', field: 'client_id' });
      } finally {
        await t.client.setTenantPlan({ tenantId: admin.tenantId, plan: 'standard' }, system());
      }
    });
  });

  describe('authorization request', () => {
    it('never redirects for an unknown client or an unregistered redirect URI (exact match only)', async () => {
      expect(await rejection(begin({ clientId: 'cli_aaaaaaaaaaaaaaaaaaaa' }))).toMatchObject({ code: '404012', field: 'client_id' });
      expect(await rejection(begin({ clientId: 'garbage' }))).toMatchObject({ code: '404012', field: 'client_id' });
      for (const redirectUri of [`${REDIRECT}/`, `${REDIRECT}?x=1`, 'https://partner.example.com/oauth/CALLBACK', 'https://evil.example/cb']) {
        expect(await rejection(begin({ redirectUri }))).toMatchObject({ code: '422103', field: 'redirect_uri' });
      }
      // a client of the other environment is unknown here
      expect(
        await rejection(
          t.client.beginAuthorization(
            { environment: 'sandbox', clientId: confidential.id, redirectUri: REDIRECT, responseType: 'code', scope: 'project:read' },
            anon('sandbox'),
          ),
        ),
      ).toMatchObject({
        code: '404012',
      });
    });

    it('reports other problems to the client by redirect with error and state', async () => {
      const errorOf = async (over: Record<string, string | undefined>) => {
        const url = new URL((await begin(over)).redirectLocation!);
        expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
        expect(url.searchParams.get('state')).toBe('xyz');
        return url.searchParams.get('error');
      };
      expect(await errorOf({ responseType: 'token' })).toBe('unsupported_response_type');
      expect(await errorOf({ scope: '' })).toBe('invalid_scope');
      expect(await errorOf({ scope: 'project:read project:delete' })).toBe('invalid_scope');
      expect(await errorOf({ codeChallenge: pkce().challenge, codeChallengeMethod: 'plain' })).toBe('invalid_request');
      expect(await errorOf({ codeChallenge: 'short', codeChallengeMethod: 'S256' })).toBe('invalid_request');
      const pub = await t.client.beginAuthorization(
        { environment: 'live', clientId: publicClient, redirectUri: 'http://127.0.0.1:7777/cb', responseType: 'code', scope: 'project:read' },
        anon(),
      );
      expect(new URL(pub.redirectLocation!).searchParams.get('error')).toBe('invalid_request');
    });

    it('opens a pending authorization for the consent page: requested scope, client name, CSRF token stored hashed', async () => {
      const step = await begin();
      expect(step.redirectLocation).toBeUndefined();
      expect(step.prompt).toMatchObject({
        clientId: confidential.id,
        clientName: 'Partner dashboard',
        scope: ['project:read', 'data:read'],
        redirectUri: REDIRECT,
      });
      const [row] = await t.sql<{ csrf_hash: string; expires_at: string; created_at: string }>(
        'SELECT csrf_hash, expires_at, created_at FROM identity.oauth_requests WHERE id = $1',
        [step.prompt!.requestId],
      );
      expect(row!.csrf_hash).toBe(createHash('sha256').update(step.prompt!.csrfToken).digest('hex'));
      expect(new Date(row!.expires_at).getTime() - new Date(row!.created_at).getTime()).toBe(600_000);
    });
  });

  describe('consent', () => {
    it('redirects a declining user with error=access_denied and the state, and answers each form once', async () => {
      const step = await begin();
      const denied = await t.client.completeAuthorization(
        {
          environment: 'live',
          requestId: step.prompt!.requestId,
          csrfToken: step.prompt!.csrfToken,
          decision: 'deny',
          username: '',
          password: '',
          clientAddress: '',
        },
        anon(),
      );
      const url = new URL(denied.redirectLocation!);
      expect([url.searchParams.get('error'), url.searchParams.get('state'), url.searchParams.get('code')]).toEqual(['access_denied', 'xyz', null]);
      expect(await rejection(allow(step))).toMatchObject({ code: '400001', field: 'request_id' });
    });

    it('refuses a forged or expired form (400001) and shows a failed sign-in on the page again', async () => {
      const step = await begin();
      expect(
        await rejection(
          t.client.completeAuthorization(
            {
              environment: 'live',
              requestId: step.prompt!.requestId,
              csrfToken: 'forged',
              decision: 'allow',
              username: ADMIN.username,
              password: ADMIN.password,
              clientAddress: '',
            },
            anon(),
          ),
        ),
      ).toMatchObject({
        code: '400001',
        field: 'csrf_token',
      });
      const wrong = await allow(step, ADMIN.username, 'not the password');
      expect(wrong).toMatchObject({ errorCode: '401008', prompt: { requestId: step.prompt!.requestId, clientName: 'Partner dashboard' } });
      expect(wrong.redirectLocation).toBeUndefined();
      // the form still works after a failed sign-in
      expect(codeOf((await allow(step)).redirectLocation!)).toMatch(/^[0-9a-z]{43}$/);

      const late = await begin();
      t.clock.advance(601);
      expect(await rejection(allow(late))).toMatchObject({ code: '400001', field: 'request_id' });
    });

    it('locks the sign-in on the consent page per source (401007 on the page); the owner from elsewhere is let through', async () => {
      await t.client.createUser(
        { username: 'consent.user', password: 'consent user password', name: 'Consent', permissions: ['project:read'], disabled: false },
        admin,
      );
      const step = await begin();
      const signIn = (clientAddress: string, password: string) =>
        t.client.completeAuthorization(
          {
            environment: 'live',
            requestId: step.prompt!.requestId,
            csrfToken: step.prompt!.csrfToken,
            decision: 'allow',
            username: 'consent.user',
            password,
            clientAddress,
          },
          anon(),
        );
      for (let i = 1; i <= 4; i++) expect(await signIn('198.51.100.20', `wrong ${i}`)).toMatchObject({ errorCode: '401008' });
      expect(await signIn('198.51.100.20', 'wrong 5')).toMatchObject({ errorCode: '401007' });
      expect(await signIn('198.51.100.20', 'consent user password')).toMatchObject({ errorCode: '401007', prompt: { requestId: step.prompt!.requestId } });
      expect(codeOf((await signIn('203.0.113.20', 'consent user password')).redirectLocation!)).toMatch(/^[0-9a-z]{43}$/);
    });

    it('never grants more than the user holds: the scope is narrowed, and a user holding none is redirected with access_denied', async () => {
      await t.client.createUser({ username: 'reader', password: 'reader password', name: 'Reader', permissions: ['project:read'], disabled: false }, admin);
      const code = codeOf((await allow(await begin({ scope: 'project:read project:write' }), 'reader', 'reader password')).redirectLocation!);
      const tokens = await exchange(code);
      expect(tokens.scope).toBe('project:read');
      const none = await allow(await begin({ scope: 'system:admin' }), 'reader', 'reader password');
      expect(new URL(none.redirectLocation!).searchParams.get('error')).toBe('access_denied');
    });

    it('refuses a user of another tenant on the page (403003)', async () => {
      await t.client.createTenant({ name: 'Other org', adminUsername: 'other.admin', adminPassword: 'other admin password' }, system());
      const res = await allow(await begin(), 'other.admin', 'other admin password');
      expect(res).toMatchObject({ errorCode: '403003' });
    });
  });

  describe('token exchange', () => {
    it('exchanges a code for the token object bound to the client: scope, client_id claim, a session of the client', async () => {
      const code = codeOf((await allow(await begin())).redirectLocation!);
      const tokens = await exchange(code);
      expect(tokens).toMatchObject({ tokenType: 'Bearer', expiresIn: 7200, scope: 'project:read data:read' });
      const claims = decodeJwt(tokens.accessToken);
      expect(claims).toMatchObject({ client_id: confidential.id, scope: 'project:read data:read', env: 'live' });
      expect(await checkToken(tokens.accessToken)).toMatchObject({ clientId: confidential.id, permissions: ['project:read', 'data:read'] });
      const [session] = await t.sql('SELECT client_id, scope FROM identity.sessions WHERE id = $1', [claims.sid]);
      expect(session).toEqual({ client_id: confidential.id, scope: ['project:read', 'data:read'] });
    });

    it('refuses wrong client credentials with 401005 without using the code up', async () => {
      const code = codeOf((await allow(await begin())).redirectLocation!);
      for (const over of [
        { clientSecret: 'wrong' },
        { clientSecret: undefined },
        { clientId: 'cli_aaaaaaaaaaaaaaaaaaaa' },
        { clientId: publicClient, clientSecret: 'x' },
      ]) {
        expect(await rejection(exchange(code, over))).toMatchObject({ code: '401005', field: 'client_id' });
      }
      expect((await exchange(code)).accessToken).toBeTruthy();
    });

    it('binds the code to its client and redirect URI, and lets it expire after 10 minutes (401003)', async () => {
      const other = await t.client.createOAuthClient({ name: 'Other app', redirectUris: [REDIRECT], clientType: 'confidential' }, admin);
      const code = codeOf((await allow(await begin())).redirectLocation!);
      expect(await rejection(exchange(code, { clientId: other.client!.id, clientSecret: other.clientSecret! }))).toMatchObject({
        code: '401003',
        field: 'code',
      });
      expect(await rejection(exchange(code, { redirectUri: 'https://partner.example.com/other' }))).toMatchObject({ code: '401003', field: 'code' });
      expect(await rejection(exchange('nonsense'))).toMatchObject({ code: '401003', field: 'code' });
      t.clock.advance(601);
      expect(await rejection(exchange(code))).toMatchObject({ code: '401003', field: 'code' });
    });

    it('uses a code once; presenting it again revokes the tokens it issued', async () => {
      const code = codeOf((await allow(await begin())).redirectLocation!);
      const tokens = await exchange(code);
      await checkToken(tokens.accessToken);
      expect(await rejection(exchange(code))).toMatchObject({ code: '401003', field: 'code' });
      expect(await rejection(checkToken(tokens.accessToken))).toMatchObject({ code: '401003' });
      expect(
        await rejection(
          t.client.exchangeToken(
            {
              environment: 'live',
              grantType: 'refresh_token',
              clientId: confidential.id,
              clientSecret: confidential.secret,
              refreshToken: tokens.refreshToken,
            },
            anon(),
          ),
        ),
      ).toMatchObject({
        code: '401003',
      });
      const [session] = await t.sql<{ revoke_reason: string }>('SELECT revoke_reason FROM identity.sessions WHERE id = $1', [
        decodeJwt(tokens.accessToken).sid,
      ]);
      expect(session!.revoke_reason).toBe('code_reused');
    });

    it('checks PKCE S256: the verifier must match the challenge, is required with one and refused without one', async () => {
      const { verifier, challenge } = pkce();
      const withPkce = codeOf((await allow(await begin({ codeChallenge: challenge, codeChallengeMethod: 'S256' }))).redirectLocation!);
      expect(await rejection(exchange(withPkce))).toMatchObject({ code: '401003', field: 'code_verifier' });
      expect(await rejection(exchange(withPkce, { codeVerifier: pkce().verifier }))).toMatchObject({ code: '401003', field: 'code_verifier' });
      expect((await exchange(withPkce, { codeVerifier: verifier })).accessToken).toBeTruthy();
      const withoutPkce = codeOf((await allow(await begin())).redirectLocation!);
      expect(await rejection(exchange(withoutPkce, { codeVerifier: verifier }))).toMatchObject({ code: '401003', field: 'code_verifier' });
    });

    it('lets a public client exchange its code with PKCE and no secret', async () => {
      const { verifier, challenge } = pkce();
      const step = await t.client.beginAuthorization(
        {
          environment: 'live',
          clientId: publicClient,
          redirectUri: 'http://127.0.0.1:7777/cb',
          responseType: 'code',
          scope: 'task:read',
          codeChallenge: challenge,
          codeChallengeMethod: 'S256',
        },
        anon(),
      );
      const code = codeOf((await allow(step)).redirectLocation!);
      const tokens = await t.client.exchangeToken(
        { environment: 'live', grantType: 'authorization_code', clientId: publicClient, code, redirectUri: 'http://127.0.0.1:7777/cb', codeVerifier: verifier },
        anon(),
      );
      expect(tokens.scope).toBe('task:read');
    });

    it('refreshes code-flow tokens at the token endpoint for their own client only, never at /auth/refresh', async () => {
      const tokens = await exchange(codeOf((await allow(await begin())).redirectLocation!));
      expect(await rejection(t.client.refresh({ refreshToken: tokens.refreshToken, environment: 'live' }, anon()))).toMatchObject({
        code: '401003',
        field: 'refresh_token',
      });
      const other = await t.client.createOAuthClient({ name: 'Third app', redirectUris: [REDIRECT], clientType: 'confidential' }, admin);
      expect(
        await rejection(
          t.client.exchangeToken(
            {
              environment: 'live',
              grantType: 'refresh_token',
              clientId: other.client!.id,
              clientSecret: other.clientSecret!,
              refreshToken: tokens.refreshToken,
            },
            anon(),
          ),
        ),
      ).toMatchObject({ code: '401003' });
      const refreshed = await t.client.exchangeToken(
        { environment: 'live', grantType: 'refresh_token', clientId: confidential.id, clientSecret: confidential.secret, refreshToken: tokens.refreshToken },
        anon(),
      );
      expect(refreshed.scope).toBe('project:read data:read');
      expect(decodeJwt(refreshed.accessToken).client_id).toBe(confidential.id);
      // a password session's refresh token is not one of this client's
      const password = await t.client.login({ ...ADMIN, environment: 'live', clientAddress: '' }, anon());
      expect(
        await rejection(
          t.client.exchangeToken(
            {
              environment: 'live',
              grantType: 'refresh_token',
              clientId: confidential.id,
              clientSecret: confidential.secret,
              refreshToken: password.refreshToken,
            },
            anon(),
          ),
        ),
      ).toMatchObject({ code: '401003' });
    });

    it('validates the request: grant_type, code and redirect_uri', async () => {
      expect(await rejection(exchange('x', { grantType: '' }))).toMatchObject({ code: '422101', field: 'grant_type' });
      expect(await rejection(exchange('x', { grantType: 'password' }))).toMatchObject({ code: '422103', field: 'grant_type' });
      expect(await rejection(exchange('', {}))).toMatchObject({ code: '422101', field: 'code' });
      expect(await rejection(exchange('x', { redirectUri: '' }))).toMatchObject({ code: '422101', field: 'redirect_uri' });
    });

    it('deleting a client ends every session granted to it and its pending codes (404012 for an unknown client)', async () => {
      const doomed = await t.client.createOAuthClient({ name: 'Doomed', redirectUris: [REDIRECT], clientType: 'confidential' }, admin);
      const beginFor = () =>
        t.client.beginAuthorization(
          { environment: 'live', clientId: doomed.client!.id, redirectUri: REDIRECT, responseType: 'code', scope: 'project:read' },
          anon(),
        );
      const tokens = await t.client.exchangeToken(
        {
          environment: 'live',
          grantType: 'authorization_code',
          clientId: doomed.client!.id,
          clientSecret: doomed.clientSecret!,
          code: codeOf((await allow(await beginFor())).redirectLocation!),
          redirectUri: REDIRECT,
        },
        anon(),
      );
      const pendingCode = codeOf((await allow(await beginFor())).redirectLocation!);
      await t.client.deleteOAuthClient({ id: doomed.client!.id }, admin);
      expect(await rejection(checkToken(tokens.accessToken))).toMatchObject({ code: '401003' });
      expect(await t.sql('SELECT code_hash FROM identity.oauth_codes WHERE client_id = $1', [doomed.client!.id])).toEqual([]);
      expect(pendingCode).toBeTruthy();
      expect(await rejection(t.client.deleteOAuthClient({ id: doomed.client!.id }, admin))).toMatchObject({ code: '404012', field: 'client_id' });
      expect(await rejection(t.client.deleteOAuthClient({ id: confidential.id }, { ...admin, tenantId: 'ten_otherotherotherothe' }))).toMatchObject({
        code: '404012',
      });
      expect(await rejection(t.client.deleteOAuthClient({ id: 'nope' }, admin))).toMatchObject({ code: '400004', field: 'client_id' });
    });
  });
});
