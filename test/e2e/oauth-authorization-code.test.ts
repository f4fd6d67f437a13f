import * as oauth from 'oauth4webapi';
import { decodeJwt } from 'jose';
import { queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { consentFormOf, createTenant, identityClient, submitConsent, tenantKey, tlsFetch, upsertPlan } from '../support/identity.js';

// docs/rules.md#oauth with a published OAuth 2.0 client library (oauth4webapi) as the third-party
// application. The user's browser is played by plain HTTPS requests here (the page is driven in
// headless Chromium in test/browser/oauth-consent.test.ts).
const REDIRECT = 'https://partner.example.com/oauth/callback';

describe('OAuth 2.0 authorization code', () => {
  let t: TestPlatform;
  let admin: Record<string, string>;
  let as: oauth.AuthorizationServer;
  let confidential: { client: oauth.Client; secret: string };
  let publicClient: oauth.Client;
  const options = { [oauth.customFetch]: tlsFetch as unknown as typeof fetch };

  /** The user's side: opens the authorization URL, signs in and decides on the consent page; returns where the browser is sent. */
  async function authorize(params: Record<string, string>, decision: 'allow' | 'deny' = 'allow', user = { username: 'admin', password: '' }) {
    const url = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const page = await t.api('GET', `${url.pathname.replace(/^\/v3/, '')}${url.search}`);
    expect(page.status).toBe(200);
    const answer = await submitConsent(t.base, consentFormOf(page), { decision, username: user.username, password: user.password || t.admin.password });
    expect(answer.status).toBe(302);
    return new URL(answer.headers.location as string);
  }

  /** The application's whole flow with oauth4webapi: PKCE when asked, consent, callback validation, code exchange. */
  async function runFlow(client: oauth.Client, auth: oauth.ClientAuth, opts: { pkce: boolean; scope?: string; user?: { username: string; password: string } }) {
    const state = oauth.generateRandomState();
    const verifier = oauth.generateRandomCodeVerifier();
    const params: Record<string, string> = {
      client_id: client.client_id,
      redirect_uri: (client.redirect_uri as string) ?? REDIRECT,
      response_type: 'code',
      scope: opts.scope ?? 'project:read data:read',
      state,
    };
    if (opts.pkce) Object.assign(params, { code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const callback = await authorize(params, 'allow', opts.user);
    const callbackParams = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      callbackParams,
      params.redirect_uri!,
      opts.pkce ? verifier : oauth.nopkce,
      options,
    );
    return { response, callback };
  }

  beforeAll(async () => {
    t = await startTestPlatform();
    admin = { authorization: `Bearer ${await t.login()}` };
    as = { issuer: t.base, authorization_endpoint: `${t.base}/oauth/authorize`, token_endpoint: `${t.base}/oauth/token` };
    const c = await t.api('POST', '/oauth/clients', { headers: admin, body: { name: 'Partner dashboard', redirect_uris: [REDIRECT] } });
    confidential = { client: { client_id: c.body.data.client_id }, secret: c.body.data.client_secret };
    const p = await t.api('POST', '/oauth/clients', {
      headers: admin,
      body: { name: 'Field app', redirect_uris: ['http://127.0.0.1:53682/callback'], client_type: 'public' },
    });
    publicClient = { client_id: p.body.data.client_id, token_endpoint_auth_method: 'none', redirect_uri: 'http://127.0.0.1:53682/callback' };
  });
  afterAll(() => t?.stop());

  describe('client registration', () => {
    it('registers clients with exact redirect URIs; the secret is shown once and stored hashed', async () => {
      expect(confidential.client.client_id).toMatch(/^cli_[0-9a-z]{20}$/);
      expect(confidential.secret).toMatch(/^[A-Za-z0-9]{40}$/);
      const list = await t.api('GET', '/oauth/clients', { headers: admin });
      expect(list.status).toBe(200);
      expect(list.body.data.items.map((c: { client_id: string }) => c.client_id)).toEqual([publicClient.client_id, confidential.client.client_id]);
      expect(list.body.data.items[1]).toEqual({
        client_id: confidential.client.client_id,
        name: 'Partner dashboard',
        client_type: 'confidential',
        redirect_uris: [REDIRECT],
        environment: 'live',
        created_at: expect.any(String),
        created_by: expect.stringMatching(/^usr_/),
      });
      expect(JSON.stringify(list.body)).not.toContain(confidential.secret);
      const rows = await queryTestDatabase(t.db.url, 'SELECT * FROM identity.oauth_clients WHERE id = $1', [confidential.client.client_id]);
      expect(JSON.stringify(rows)).not.toContain(confidential.secret);
    });

    it('validates registration and deletion: 422101/422103 fields, 404012 unknown client, 400004 malformed id, 401004 without system:admin', async () => {
      expectError(await t.api('POST', '/oauth/clients', { headers: admin, body: { name: 'x', redirect_uris: [] } }), 422101, 'redirect_uris');
      expectError(
        await t.api('POST', '/oauth/clients', { headers: admin, body: { name: 'x', redirect_uris: ['http://partner.example.com/cb'] } }),
        422103,
        'redirect_uris[0]',
      );
      expectError(
        await t.api('POST', '/oauth/clients', { headers: admin, body: { name: 'x', redirect_uris: [REDIRECT], client_type: 'spa' } }),
        422103,
        'client_type',
      );
      expectError(await t.api('DELETE', '/oauth/clients/cli_aaaaaaaaaaaaaaaaaaaa', { headers: admin }), 404012, 'client_id');
      expectError(await t.api('DELETE', '/oauth/clients/nope', { headers: admin }), 400004, 'client_id');
      const reader = await t.apiKey(['project:read']);
      expectError(await t.api('GET', '/oauth/clients', { headers: { 'x-api-key': reader } }), 401004);
      expect(await queryTestDatabase(t.db.url, "SELECT id FROM identity.oauth_clients WHERE name = 'x'")).toEqual([]);
    });

    it('refuses OAuth clients to a tenant whose plan does not license them (403004)', async () => {
      const id = identityClient(t);
      try {
        await upsertPlan(id, 'basic-no-oauth', ['sandbox']);
        const tenant = await createTenant(id, 'basic-no-oauth');
        const key = await tenantKey(id, tenant, ['system:admin']);
        expectError(await t.api('POST', '/oauth/clients', { headers: { 'x-api-key': key }, body: { name: 'nope', redirect_uris: [REDIRECT] } }), 403004);
      } finally {
        id.close();
      }
    });
  });

  describe('the flow with oauth4webapi', () => {
    it('confidential client without PKCE (client_secret_basic): the token object, usable within the granted scope only', async () => {
      const { response, callback } = await runFlow(confidential.client, oauth.ClientSecretBasic(confidential.secret), { pkce: false });
      expect(callback.origin + callback.pathname).toBe(REDIRECT);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const tokens = await oauth.processAuthorizationCodeResponse(as, confidential.client, response);
      expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 7200, scope: 'project:read data:read' });
      expect(typeof tokens.refresh_token).toBe('string');
      expect(decodeJwt(tokens.access_token)).toMatchObject({ client_id: confidential.client.client_id, scope: 'project:read data:read' });

      const h = { authorization: `Bearer ${tokens.access_token}` };
      expect((await t.api('GET', '/projects', { headers: h })).status).toBe(200);
      expectError(await t.api('POST', '/projects', { headers: h, body: { name: 'Not granted', number: 'NG-1' } }), 401004);
      // An application's token never reaches the webhook endpoints, whatever its scope (ADR 0055).
      expectError(await t.api('GET', '/webhooks', { headers: h }), 401001, 'X-API-Key');
      expect((await t.api('GET', '/me', { headers: h })).body.data).toMatchObject({
        principal_type: 'user',
        client_id: confidential.client.client_id,
        permissions: ['project:read', 'data:read'],
      });

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        confidential.client,
        await oauth.refreshTokenGrantRequest(as, confidential.client, oauth.ClientSecretBasic(confidential.secret), tokens.refresh_token!, options),
      );
      expect(refreshed.scope).toBe('project:read data:read');
      expect((await t.api('GET', '/projects', { headers: { authorization: `Bearer ${refreshed.access_token}` } })).status).toBe(200);
    });

    it('confidential client with PKCE S256 (client_secret_post)', async () => {
      const { response } = await runFlow(confidential.client, oauth.ClientSecretPost(confidential.secret), { pkce: true, scope: 'task:read' });
      const tokens = await oauth.processAuthorizationCodeResponse(as, confidential.client, response);
      expect(tokens.scope).toBe('task:read');
    });

    it('public client: PKCE is required (error=invalid_request without it) and no secret is used', async () => {
      const { response } = await runFlow(publicClient, oauth.None(), { pkce: true });
      expect((await oauth.processAuthorizationCodeResponse(as, publicClient, response)).access_token).toBeTruthy();

      const url = new URL(as.authorization_endpoint!);
      for (const [k, v] of Object.entries({
        client_id: publicClient.client_id,
        redirect_uri: publicClient.redirect_uri as string,
        response_type: 'code',
        scope: 'project:read',
        state: 's1',
      }))
        url.searchParams.set(k, v);
      const refused = await t.api('GET', `/oauth/authorize${url.search}`);
      expect(refused.status).toBe(302);
      const error = (() => {
        try {
          oauth.validateAuthResponse(as, publicClient, new URL(refused.headers.location as string), 's1');
        } catch (err) {
          return err as oauth.AuthorizationResponseError;
        }
        throw new Error('expected an error response');
      })();
      expect(error.error).toBe('invalid_request');
    });

    it('a user who declines is sent back with error=access_denied and the state', async () => {
      const state = oauth.generateRandomState();
      const callback = await authorize(
        { client_id: confidential.client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'project:read', state },
        'deny',
      );
      expect(() => oauth.validateAuthResponse(as, confidential.client, callback, state)).toThrow(oauth.AuthorizationResponseError);
      expect(Object.fromEntries(callback.searchParams)).toEqual({ error: 'access_denied', error_description: 'The user declined the request.', state });
    });

    it('a code works once: reusing it is invalid_grant (401003) and revokes the tokens it issued', async () => {
      const state = oauth.generateRandomState();
      const callback = await authorize({
        client_id: confidential.client.client_id,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'project:read',
        state,
      });
      const params = oauth.validateAuthResponse(as, confidential.client, callback, state);
      const auth = oauth.ClientSecretPost(confidential.secret);
      const tokens = await oauth.processAuthorizationCodeResponse(
        as,
        confidential.client,
        await oauth.authorizationCodeGrantRequest(as, confidential.client, auth, params, REDIRECT, oauth.nopkce, options),
      );
      expect((await t.api('GET', '/projects', { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);

      const again = await oauth.authorizationCodeGrantRequest(as, confidential.client, auth, params, REDIRECT, oauth.nopkce, options);
      const err = await oauth.processAuthorizationCodeResponse(as, confidential.client, again).catch((e: unknown) => e as oauth.ResponseBodyError);
      expect(err).toBeInstanceOf(oauth.ResponseBodyError);
      expect(err).toMatchObject({ error: 'invalid_grant', status: 401 });
      expect(err.cause).toMatchObject({ code: 401003, data: { field: 'code' } });

      expectError(await t.api('GET', '/projects', { headers: { authorization: `Bearer ${tokens.access_token}` } }), 401003, 'Authorization');
      const refresh = await oauth.refreshTokenGrantRequest(as, confidential.client, auth, tokens.refresh_token!, options);
      expect(await oauth.processRefreshTokenResponse(as, confidential.client, refresh).catch((e: unknown) => (e as oauth.ResponseBodyError).error)).toBe(
        'invalid_grant',
      );
    });

    it('refuses wrong client credentials with 401005 (invalid_client), with the full envelope for the JSON body', async () => {
      const state = oauth.generateRandomState();
      const callback = await authorize({
        client_id: confidential.client.client_id,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'project:read',
        state,
      });
      const params = oauth.validateAuthResponse(as, confidential.client, callback, state);
      const wrong = await oauth.authorizationCodeGrantRequest(
        as,
        confidential.client,
        oauth.ClientSecretPost('not-the-secret'),
        params,
        REDIRECT,
        oauth.nopkce,
        options,
      );
      expect(await oauth.processAuthorizationCodeResponse(as, confidential.client, wrong).catch((e: unknown) => (e as oauth.ResponseBodyError).error)).toBe(
        'invalid_client',
      );
      const basic = await oauth.authorizationCodeGrantRequest(
        as,
        confidential.client,
        oauth.ClientSecretBasic('not-the-secret'),
        params,
        REDIRECT,
        oauth.nopkce,
        options,
      );
      expect(basic.status).toBe(401);
      expect(basic.headers.get('www-authenticate')).toMatch(/^Basic realm="oauth"/);

      const body = {
        grant_type: 'authorization_code',
        client_id: confidential.client.client_id,
        client_secret: 'not-the-secret',
        code: callback.searchParams.get('code'),
        redirect_uri: REDIRECT,
      };
      const res = await t.api('POST', '/oauth/token', { body });
      expectError(res, 401005, 'client_id');
      expect(res.body.error).toBe('invalid_client');
      expectError(await t.api('POST', '/oauth/token', { body: { ...body, client_id: 'cli_aaaaaaaaaaaaaaaaaaaa' } }), 401005, 'client_id');
      // the JSON form works with the right secret, and the code was not used up by the refusals
      const ok = await t.api('POST', '/oauth/token', { body: { ...body, client_secret: confidential.secret } });
      expect(ok.status).toBe(200);
      expect(Object.keys(ok.body).sort()).toEqual(['access_token', 'expires_in', 'meta', 'refresh_token', 'scope', 'token_type']);
      expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'project:read' });
    });

    it('binds a code to its redirect URI and PKCE verifier (invalid_grant otherwise)', async () => {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const callback = await authorize({
        client_id: confidential.client.client_id,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'project:read',
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const code = callback.searchParams.get('code');
      const token = (extra: Record<string, string>) =>
        t.api('POST', '/oauth/token', {
          body: {
            grant_type: 'authorization_code',
            client_id: confidential.client.client_id,
            client_secret: confidential.secret,
            code,
            redirect_uri: REDIRECT,
            ...extra,
          },
        });
      expectError(await token({}), 401003, 'code_verifier');
      expectError(await token({ code_verifier: oauth.generateRandomCodeVerifier() }), 401003, 'code_verifier');
      expectError(await token({ code_verifier: verifier, redirect_uri: 'https://partner.example.com/other' }), 401003, 'code');
      expect((await token({ code_verifier: verifier })).status).toBe(200);
    });

    it('never grants more than the user holds: the token scope is narrowed', async () => {
      const h = admin;
      await t.api('POST', '/users', {
        headers: h,
        body: { username: 'oauth.reader', password: 'oauth reader password', name: 'Reader', permissions: ['project:read'] },
      });
      const { response } = await runFlow(confidential.client, oauth.ClientSecretBasic(confidential.secret), {
        pkce: true,
        scope: 'project:read project:write system:admin',
        user: { username: 'oauth.reader', password: 'oauth reader password' },
      });
      const tokens = await oauth.processAuthorizationCodeResponse(as, confidential.client, response);
      expect(tokens.scope).toBe('project:read');
    });
  });

  describe('the authorization endpoint', () => {
    const query = (over: Record<string, string> = {}) =>
      `?${new URLSearchParams({ client_id: confidential.client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'project:read data:write', state: 'abc', ...over })}`;

    it('serves the login and consent page: the application, the requested permissions, labelled fields, CSRF token and protective headers', async () => {
      const page = await t.api('GET', `/oauth/authorize${query()}`);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('<html lang="en">');
      expect(page.text).toContain('Partner dashboard');
      expect(page.text).toContain('<code>project:read</code> — read project information');
      expect(page.text).toContain('<code>data:write</code> — write monitoring data');
      expect(page.text).toMatch(/<label for="username">Username<\/label>\s*<input type="text" id="username"/);
      expect(page.text).toMatch(/<label for="password">Password<\/label>\s*<input type="password" id="password"/);
      expect(page.text).toContain('<legend>Partner dashboard will be able to</legend>');
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(page.headers['content-security-policy']).toContain("form-action 'self' https://partner.example.com");
      expect(page.headers['cache-control']).toBe('no-store');
      const form = consentFormOf(page);
      expect(form.cookie).toBe(`mp_oauth_csrf_${form.requestId}=${form.csrfToken}`);
      expect(([] as string[]).concat(page.headers['set-cookie'] ?? []).join()).toMatch(/HttpOnly; Secure; SameSite=Strict/);
    });

    it('never redirects for an unknown client or an unregistered redirect URI: an HTML error page instead', async () => {
      for (const [over, status, code] of [
        [{ client_id: 'cli_aaaaaaaaaaaaaaaaaaaa' }, 404, '404012'],
        [{ redirect_uri: 'https://evil.example/callback' }, 422, '422103'],
        [{ redirect_uri: `${REDIRECT}/extra` }, 422, '422103'],
        [{ redirect_uri: '' }, 400, '400001'],
      ] as const) {
        const res = await t.api('GET', `/oauth/authorize${query(over)}`);
        expect(res.status).toBe(status);
        expect(res.headers.location).toBeUndefined();
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.text).toContain(`Error ${code}`);
        expect(res.text).toContain('role="alert"');
      }
    });

    it('reports a bad request of a known client to its redirect URI (invalid_scope, unsupported_response_type)', async () => {
      const scope = await t.api('GET', `/oauth/authorize${query({ scope: 'project:read everything' })}`);
      expect(scope.status).toBe(302);
      expect(Object.fromEntries(new URL(scope.headers.location as string).searchParams)).toMatchObject({ error: 'invalid_scope', state: 'abc' });
      const type = await t.api('GET', `/oauth/authorize${query({ response_type: 'token' })}`);
      expect(new URL(type.headers.location as string).searchParams.get('error')).toBe('unsupported_response_type');
    });

    it('refuses a consent form without its CSRF cookie, with another one, or answered twice (HTML, no redirect, no code)', async () => {
      const form = consentFormOf(await t.api('GET', `/oauth/authorize${query()}`));
      const other = consentFormOf(await t.api('GET', `/oauth/authorize${query()}`));
      for (const cookie of ['', other.cookie, `mp_oauth_csrf_${form.requestId}=${other.csrfToken}`]) {
        const res = await submitConsent(t.base, form, { decision: 'allow', username: t.admin.username, password: t.admin.password }, { cookie });
        expect(res.status).toBe(400);
        expect(res.headers.location).toBeUndefined();
        expect(res.text).toContain('Error 400001');
      }
      expect((await submitConsent(t.base, form, { decision: 'deny' })).status).toBe(302);
      const twice = await submitConsent(t.base, form, { decision: 'allow', username: t.admin.username, password: t.admin.password });
      expect(twice.status).toBe(400);
      expect(twice.headers.location).toBeUndefined();
    });

    it('shows a failed sign-in on the page again (401008, announced as an alert) and lets the user retry', async () => {
      const form = consentFormOf(await t.api('GET', `/oauth/authorize${query()}`));
      const wrong = await submitConsent(t.base, form, { decision: 'allow', username: t.admin.username, password: 'not the password' });
      expect(wrong.status).toBe(401);
      expect(wrong.text).toMatch(/<p class="error" id="signin-error" role="alert">The username or password is incorrect\./);
      expect(wrong.text).toContain('aria-describedby="signin-error" aria-invalid="true"');
      expect(wrong.text).toContain(`value="${t.admin.username}"`);
      const right = await submitConsent(t.base, form, { decision: 'allow', username: t.admin.username, password: t.admin.password });
      expect(right.status).toBe(302);
      expect(new URL(right.headers.location as string).searchParams.get('code')).toMatch(/^[0-9a-z]{43}$/);
    });
  });
});
