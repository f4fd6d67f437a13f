import { z } from 'zod';
import { DomainError } from '@mp/errors';
import * as api from '../api/resources.js';
import { route, type GatewayRouter } from '../api/route-spec.js';
import { text } from '../bounds.js';
import type { ServiceClients } from '../clients.js';
import { ok } from '../envelope.js';
import { presentReports as present } from '../presenters-reports.js';
import { validate } from '../validate.js';

/** Base64 of the largest logo the reports service keeps (512 KiB), and no more. */
const MAX_IMAGE_BASE64 = Math.ceil((512 * 1024) / 3) * 4;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const logoBody = z.object({
  image: text(MAX_IMAGE_BASE64).meta({ description: 'The PNG or JPEG file, base64-encoded (at most 512 KiB decoded, 2000 × 2000 pixels).' }),
});

/**
 * The tenant's logo on its reports (ADR 0108), a tenant setting (system:admin), kept per
 * environment. Sent base64 in JSON like every other body; its type is read from the image's own
 * first bytes by the reports service, which refuses anything but a PNG or JPEG it can draw.
 */
export function tenantLogoRoutes(router: GatewayRouter, clients: ServiceClients): void {
  route(
    router,
    {
      method: 'put',
      path: '/tenant/logo',
      summary: "Upload or replace the tenant's logo, shown on every page of the reports made from now on.",
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      body: logoBody,
      response: api.tenantLogo,
      errors: ['422103'],
    },
    async (ctx) => {
      const state = ctx.state;
      const b = validate(logoBody, state.body ?? {}, 'body');
      const compact = b.image.replace(/\s/g, '');
      if (!BASE64.test(compact) || compact.length % 4 !== 0) {
        throw new DomainError('422103', {
          field: 'image',
          detail: 'image is not base64.',
          suggestion: 'Send the file base64-encoded, e.g. `base64 -w0 logo.png`.',
        });
      }
      ok(ctx, present.logo(await clients.reports.putTenantLogo({ image: Buffer.from(compact, 'base64') }, state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'get',
      path: '/tenant/logo',
      summary: "The tenant's logo (base64) with its type, size and dimensions.",
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'report:read',
      rateLimit: 'tenant',
      response: api.tenantLogo,
      errors: ['404019'],
    },
    async (ctx) => {
      ok(ctx, present.logo(await clients.reports.getTenantLogo({}, ctx.state.caller!)));
    },
  );

  route(
    router,
    {
      method: 'delete',
      path: '/tenant/logo',
      summary: "Remove the tenant's logo; reports made from now on show its name only.",
      tag: 'Reports',
      auth: 'api_key_or_bearer',
      permission: 'system:admin',
      rateLimit: 'tenant',
      response: api.deleted(api.tenantLogo),
      errors: ['404019'],
    },
    async (ctx) => {
      ok(ctx, { ...present.logo(await clients.reports.deleteTenantLogo({}, ctx.state.caller!)), deleted: true });
    },
  );
}
