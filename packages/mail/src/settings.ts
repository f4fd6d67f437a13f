import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The mail settings every service that sends mail reads (alarm notifications in the webhooks
 * service, scheduled reports in the reports service): one SMTP server and one From for the
 * platform, so an operator sets them once.
 */
export const mailConfigSchema = z.object({
  /**
   * The SMTP server mails leave through: smtps://user:pass@host:465 (TLS from the start) or
   * smtp://user:pass@host:587 (STARTTLS, required unless the URL says ?requireTLS=false).
   * Unset: nothing is mailed (notification rules and report schedules are kept, and say so).
   */
  MP_SMTP_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^smtps?:\/\/[^\s]+$/, 'an smtp:// or smtps:// URL')
      .optional(),
  ),
  /** The From of the platform's mails. */
  MP_MAIL_FROM: z.string().min(3).max(320).default('Monitoring Platform <alarms@localhost>'),
  /** Extra CA certificate file to trust besides the system roots (self-signed SMTP servers, receivers). */
  NODE_EXTRA_CA_CERTS: z.string().optional(),
});

/** The PEM of NODE_EXTRA_CA_CERTS, read once at start. */
export function readExtraCa(path: string | undefined): string[] | undefined {
  return path ? [readFileSync(path, 'utf8')] : undefined;
}
