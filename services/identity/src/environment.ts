import { DomainError } from '@mp/errors';

export type Environment = 'live' | 'sandbox';

/** The environment of the base URL the gateway received the request at. */
export function parseEnvironment(value: string): Environment {
  if (value === 'live' || value === 'sandbox') return value;
  throw new DomainError('422103', { field: 'environment', detail: 'environment must be "live" or "sandbox".' });
}
