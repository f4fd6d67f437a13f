import { fileURLToPath } from 'node:url';

/**
 * The folder of the built console (index.html and hashed assets), as `vite build` leaves it. The
 * gateway serves it at /console; nothing else reads it.
 */
export const consoleDistDir = fileURLToPath(new URL('./dist/', import.meta.url));
