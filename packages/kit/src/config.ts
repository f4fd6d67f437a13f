import { z } from 'zod';

/**
 * Parses a service's settings once at boot. Code receives the typed result and never reads
 * process.env itself. A bad value fails with a message naming the variable and what it allows.
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined> = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
}

/** A boolean environment variable: "true"/"1" or "false"/"0"/unset. */
export const envBoolean = (fallback = false) =>
  z
    .enum(['true', 'false', '1', '0', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : v === 'true' || v === '1'));

/** A TCP port; 0 asks the OS for a free one (tests). */
export const envPort = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
