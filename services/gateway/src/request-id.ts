import { isId, newId } from '@mp/kit';

export const newRequestId = () => newId('request');

/**
 * The request id of this request: the client's `X-Request-Id` when it has our shape
 * (`req_<id>`, so a proxy or client can follow its own id through our logs), a new one otherwise.
 * Anything else is ignored rather than echoed: it would otherwise reach logs and headers unchecked.
 */
export function requestIdOf(incoming: string | undefined): string {
  return incoming && isId('request', incoming) ? incoming : newRequestId();
}
