import type { Middleware } from 'koa';
import { SECURITY_HEADERS } from '../security-headers.js';
import { announcesBody } from './read-body.js';

/** Outermost: the security headers of every response (a route may still set its own Cache-Control). */
export const securityHeaders: Middleware = async (ctx, next) => {
  ctx.set(SECURITY_HEADERS);
  await next();
};

/**
 * A request answered before its body arrived (refused before reading, or the body was refused
 * part way) ends its connection: keeping it alive would mean reading the rest of a body that may
 * be 5 MB or never come. The lingering close drains what the client still sends, for a bounded
 * time, so that it reads this answer instead of a reset (lingering-close.ts).
 */
export const closeWhenBodyUnread: Middleware = async (ctx, next) => {
  await next();
  if (announcesBody(ctx) && !ctx.req.complete) ctx.set('Connection', 'close');
};
