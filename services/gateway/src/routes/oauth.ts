import type { Context, Middleware, Next } from 'koa';
import { z } from 'zod';
import { constantTimeEqual } from '@mp/kit';
import { DomainError, isDomainError } from '@mp/errors';
import { anonymousContext } from '@mp/grpc';
import type { ServiceClients } from '../clients.js';
import { errorBody, ok } from '../envelope.js';
import { csrfCookieName, renderConsentPage, renderErrorPage } from '../oauth-page.js';
import { presentIdentity as present } from '../presenters-identity.js';
import { listData, pageOf, pageQuery, validate } from '../validate.js';
import * as api from '../api/resources.js';
import { aroundGuards, route, type GatewayRouter } from '../api/route-spec.js';

const clientBody = z.object({
  name: z.string().max(100),
  redirect_uris: z.array(z.string().max(2000)).max(10),
  client_type: z.enum(['confidential', 'public']).optional(),
});

const authorizeQuery = z.object({
  client_id: z.string().max(100).optional(),
  redirect_uri: z.string().max(2000).optional(),
  response_type: z.string().max(50).optional(),
  scope: z.string().max(1000).optional(),
  state: z.string().max(2000).optional(),
  code_challenge: z.string().max(200).optional(),
  code_challenge_method: z.string().max(20).optional(),
});

const consentForm = z.object({
  request_id: z.string().max(100),
  csrf_token: z.string().max(100),
  decision: z.string().max(10),
  username: z.string().max(200).optional(),
  password: z.string().max(1000).optional(),
});

const tokenBody = z.object({
  grant_type: z.string().max(50).optional(),
  client_id: z.string().max(100).optional(),
  client_secret: z.string().max(200).optional(),
  code: z.string().max(200).optional(),
  redirect_uri: z.string().max(2000).optional(),
  code_verifier: z.string().max(200).optional(),
  refresh_token: z.string().max(4000).optional(),
});

const oauthClientWithSecret = api.oauthClient.extend({ client_secret: z.string().nullable() });
/** RFC 6749 §5.1: the token object itself, with meta.request_id like every answer. */
/** RFC 6749 §5.2: what an OAuth client library reads from a refusal of the token endpoint. */
const oauthErrorFields = z.object({ error: z.string().optional(), error_description: z.string().optional() });
const tokenAnswer = api.token.extend({ meta: api.successMeta });

/** Answers every refusal of the browser-facing endpoints with an HTML page, never a redirect. */
const htmlErrors: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (err) {
    if (!isDomainError(err)) throw err;
    renderErrorPage(ctx, err);
  }
};

/** RFC 6749 §5.2 `error` values of the token endpoint, added to the platform's error envelope. */
function oauthErrorOf(err: DomainError): string | null {
  if (err.code === '401005') return 'invalid_client';
  if (err.code === '401003' || err.code === '401006' || err.code === '401002') return 'invalid_grant';
  if (err.code === '403004') return 'unauthorized_client';
  if (err.code === '422103' && err.field === 'grant_type') return 'unsupported_grant_type';
  if (err.code.startsWith('400') || err.code.startsWith('422')) return 'invalid_request';
  return null;
}

/**
 * The token endpoint's errors: the platform envelope (docs/rules.md#error-envelope) plus RFC 6749's `error` and
 * `error_description`, so OAuth client libraries understand them; a client that authenticated
 * with HTTP Basic gets the WWW-Authenticate challenge RFC 6749 §5.2 requires on 401005.
 */
const tokenErrors =
  (docsUrl: () => string): Middleware =>
  async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!isDomainError(err)) throw err;
      const state = ctx.state;
      const oauthError = oauthErrorOf(err);
      ctx.status = err.httpStatus;
      for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
      if (err.code === '401005' && /^Basic\s/i.test(ctx.get('authorization'))) ctx.set('WWW-Authenticate', 'Basic realm="oauth", charset="UTF-8"');
      ctx.set('Cache-Control', 'no-store');
      const body = errorBody(err, state.requestId, docsUrl());
      ctx.body = oauthError ? { ...body, error: oauthError, error_description: err.detail } : body;
    }
  };

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1: form-urlencoded id and secret) or the body. */
function clientCredentials(ctx: Context, body: z.infer<typeof tokenBody>): { clientId: string; clientSecret?: string } {
  const header = ctx.get('authorization');
  if (!header) return { clientId: body.client_id ?? '', ...(body.client_secret !== undefined ? { clientSecret: body.client_secret } : {}) };
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
  const decoded = m ? Buffer.from(m[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  const unauthorized = (detail: string) =>
    new DomainError('401005', { field: 'client_id', detail, suggestion: 'Send Authorization: Basic base64(client_id:client_secret), or both in the body.' });
  if (!m || colon < 0) throw unauthorized('The Authorization header must be HTTP Basic with the client credentials.');
  let clientId: string;
  let clientSecret: string;
  try {
    const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    [clientId, clientSecret] = [dec(decoded.slice(0, colon)), dec(decoded.slice(colon + 1))];
  } catch {
    throw unauthorized('The client credentials in the Authorization header are not form-urlencoded.');
  }
  // RFC 6749 §2.3: one authentication method per request.
  if (body.client_secret !== undefined || (body.client_id !== undefined && body.client_id !== clientId)) {
    throw unauthorized('Send the client credentials either in the Authorization header or in the body, not both.');
  }
  return { clientId, clientSecret };
}

/**
 * OAuth 2.0 (docs/rules.md#oauth): client registration (system:admin), the login and consent page,
 * and the token endpoint. The page and the token endpoint count as authentication requests
 * (429005 per client address).
 */
export function oauthRoutes(router: GatewayRouter, clients: ServiceClients, docsUrl: () => string): void {
  route(
    router,
    {
      method: 'post',
      path: '/oauth/clients',
      summary: 'Register an OAuth 2.0 client; its secret is shown in this answer only.',
      tag: 'OAuth 2.0',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      body: clientBody,
      response: oauthClientWithSecret,
      idempotent: true,
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(clientBody, state.body ?? {}, 'body');
      const created = await clients.identity.createOAuthClient(
        { name: b.name, redirectUris: b.redirect_uris, clientType: b.client_type ?? 'confidential' },
        state.caller!,
      );
      // The secret is shown here once; only its hash is kept.
      ok(ctx, { ...present.oauthClient(created.client!), client_secret: created.clientSecret ?? null });
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/oauth/clients',
      summary: 'List the OAuth 2.0 clients of this environment.',
      tag: 'OAuth 2.0',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      query: pageQuery,
      response: api.listOf(api.oauthClient),
    },
    async (ctx) => {
      const state = ctx.state;
      const q = validate(pageQuery, ctx.query, 'query');
      const list = await clients.identity.listOAuthClients({ page: pageOf(q) }, state.caller!);
      ok(ctx, listData(list.items, present.oauthClient, list.page));
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/oauth/clients/:client_id',
      summary: 'Delete an OAuth 2.0 client.',
      tag: 'OAuth 2.0',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      response: api.deleted(api.oauthClient),
    },
    async (ctx) => {
      const state = ctx.state;
      const deleted = await clients.identity.deleteOAuthClient({ id: ctx.params.client_id! }, state.caller!);
      ok(ctx, { ...present.oauthClient(deleted), deleted: true });
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/oauth/authorize',
      summary: 'The sign-in and consent page of the authorization code flow (HTML); redirects to redirect_uri with code.',
      tag: 'OAuth 2.0',
      auth: 'none',
      rateLimit: 'authentication',
      query: authorizeQuery,
      answer: 'html',
      errors: ['400004', '401005', '404012', '422103'],
    },
    aroundGuards(htmlErrors),
    async (ctx) => {
      const state = ctx.state;
      const q = validate(authorizeQuery, ctx.query, 'query');
      const step = await clients.identity.beginAuthorization(
        {
          environment: state.environment,
          clientId: q.client_id ?? '',
          redirectUri: q.redirect_uri ?? '',
          responseType: q.response_type ?? '',
          scope: q.scope ?? '',
          ...(q.state !== undefined ? { state: q.state } : {}),
          ...(q.code_challenge !== undefined ? { codeChallenge: q.code_challenge } : {}),
          ...(q.code_challenge_method !== undefined ? { codeChallengeMethod: q.code_challenge_method } : {}),
        },
        anonymousContext(state.requestId, state.environment),
      );
      if (step.redirectLocation) return redirect(ctx, step.redirectLocation);
      const prompt = step.prompt!;
      // Double submit: the form's token must also come back in this cookie, which only this site's
      // pages can send (SameSite=Strict) and no script can read (HttpOnly).
      const cookiePath = ctx.path.slice(0, ctx.path.lastIndexOf('/')) || '/';
      ctx.append('Set-Cookie', `${csrfCookieName(prompt.requestId)}=${prompt.csrfToken}; Path=${cookiePath}; Max-Age=600; HttpOnly; Secure; SameSite=Strict`);
      renderConsentPage(ctx, prompt);
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/oauth/authorize',
      summary: "The consent form's answer (form-encoded); redirects to redirect_uri with code or error.",
      tag: 'OAuth 2.0',
      auth: 'none',
      rateLimit: 'authentication',
      form: true,
      body: consentForm,
      answer: 'html',
      errors: ['401006', '401007', '401008'],
    },
    aroundGuards(htmlErrors),
    async (ctx) => {
      const state = ctx.state;
      const form = validate(consentForm, state.body ?? {}, 'body');
      const cookie = ctx.cookies.get(csrfCookieName(form.request_id)) ?? '';
      if (!cookie || !constantTimeEqual(cookie, form.csrf_token)) {
        throw new DomainError('400001', {
          field: 'csrf_token',
          detail: 'The form did not come from this sign-in page (its security cookie is missing or different).',
          suggestion: 'Go back to the application and start signing in again; allow cookies for this site.',
        });
      }
      const step = await clients.identity.completeAuthorization(
        {
          environment: state.environment,
          requestId: form.request_id,
          csrfToken: form.csrf_token,
          decision: form.decision,
          username: form.username ?? '',
          password: form.password ?? '',
          // the TCP peer, as at POST /auth/login: the lockout is per account and source (ADR 0019)
          clientAddress: ctx.ip,
        },
        anonymousContext(state.requestId, state.environment),
      );
      if (step.redirectLocation) {
        const cookiePath = ctx.path.slice(0, ctx.path.lastIndexOf('/')) || '/';
        ctx.append('Set-Cookie', `${csrfCookieName(form.request_id)}=; Path=${cookiePath}; Max-Age=0; HttpOnly; Secure; SameSite=Strict`);
        return redirect(ctx, step.redirectLocation);
      }
      renderConsentPage(ctx, step.prompt!, { code: step.errorCode ?? '401008', detail: step.errorDetail ?? '' }, form.username ?? '');
    },
  );

  route(
    router,
    {
      method: 'post',
      path: '/oauth/token',
      summary: 'Exchange an authorization code (or refresh token) for tokens (RFC 6749 §5.1, no envelope).',
      tag: 'OAuth 2.0',
      auth: 'none',
      rateLimit: 'authentication',
      form: true,
      body: tokenBody,
      response: tokenAnswer,
      answer: 'bare',
      errors: ['401002', '401003', '401005', '401006', '403004'],
      errorFields: oauthErrorFields,
    },
    aroundGuards(tokenErrors(docsUrl)),
    async (ctx: Context, _next: Next) => {
      const state = ctx.state;
      const b = validate(tokenBody, state.body ?? {}, 'body');
      const creds = clientCredentials(ctx, b);
      const token = await clients.identity.exchangeToken(
        {
          environment: state.environment,
          grantType: b.grant_type ?? '',
          clientId: creds.clientId,
          ...(creds.clientSecret !== undefined ? { clientSecret: creds.clientSecret } : {}),
          ...(b.code !== undefined ? { code: b.code } : {}),
          ...(b.redirect_uri !== undefined ? { redirectUri: b.redirect_uri } : {}),
          ...(b.code_verifier !== undefined ? { codeVerifier: b.code_verifier } : {}),
          ...(b.refresh_token !== undefined ? { refreshToken: b.refresh_token } : {}),
        },
        anonymousContext(state.requestId, state.environment),
      );
      // The answer is the token object itself (docs/rules.md#oauth, RFC 6749 §5.1): no envelope here,
      // but meta.request_id like every response.
      ctx.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
      ctx.status = 200;
      ctx.body = {
        access_token: token.accessToken,
        token_type: token.tokenType,
        expires_in: token.expiresIn,
        refresh_token: token.refreshToken,
        scope: token.scope,
        meta: { request_id: state.requestId, timestamp: new Date().toISOString() },
      };
    },
  );
}

/** 302 to the application's redirect_uri (docs/rules.md#oauth). */
function redirect(ctx: Context, location: string): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 302;
  ctx.set('Location', location);
  ctx.body = '';
}
