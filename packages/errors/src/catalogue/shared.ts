/** Request headers the examples of several families share; placeholders in angle brackets stand for secrets. */
export const apiKey = { 'X-API-Key': '<API_KEY>' } as const;
export const json = { 'X-API-Key': '<API_KEY>', 'Content-Type': 'application/json' } as const;
