import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

const REDACT = {
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
};

/**
 * How a root logger was made, so that a logger for one service of the process can be made like it.
 * pino appends a child's bindings to its parent's without looking for the same key, so a child
 * binding `service` again would write the key twice in one line (rejected by some log pipelines).
 */
const roots = new WeakMap<Logger, { options: LoggerOptions; destination: DestinationStream }>();

/**
 * JSON logs (pino), one object per line with unique keys: `service` names the service that wrote
 * the line. Secrets never reach a log line: the redact list covers every field that can hold one,
 * wherever it sits in a logged object. `destination` is for tests that read the lines back.
 */
export function createLogger(service: string, level = process.env.MP_LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const options: LoggerOptions = { level, base: { service }, redact: REDACT };
  const recipe = { options, destination: destination ?? pino.destination(1) };
  const logger = pino(options, recipe.destination);
  roots.set(logger, recipe);
  return logger;
}

/**
 * The logger of one service inside a process that runs several (the embedded platform): the
 * parent's bindings and level with `service` replaced, writing where the parent writes.
 */
export function serviceLogger(parent: Logger, service: string): Logger {
  const recipe = roots.get(parent);
  // A logger not made by createLogger/serviceLogger: a child that repeats no key of its parent.
  if (!recipe) return parent.child('service' in parent.bindings() ? { component: service } : { service });
  const options: LoggerOptions = { ...recipe.options, level: parent.level, base: { ...parent.bindings(), service } };
  const logger = pino(options, recipe.destination);
  roots.set(logger, recipe);
  return logger;
}
