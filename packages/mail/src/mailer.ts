import { rootCertificates } from 'node:tls';
import nodemailer from 'nodemailer';

export interface OutgoingMail {
  /** The To header, and the recipient unless `envelopeTo` is given. */
  to: string;
  /**
   * The recipients the server is asked to deliver to, when they are not the To header: a list that
   * must not see each other (a report's distribution list) gets `to: 'undisclosed-recipients:;'`.
   */
  envelopeTo?: string[];
  subject: string;
  text: string;
  html: string;
  /** Message-ID header, so a retried mail is recognisably the same message. */
  messageId: string;
  attachments?: MailAttachment[];
}

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** The SMTP server's answer to an accepted mail. */
export interface Accepted {
  response: string;
  /** Recipients the server refused while accepting the mail for the others. */
  rejected: string[];
}

/** Why a mail was not accepted, and whether trying again may help. */
export class MailRefused extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

export interface Mailer {
  /** false without MP_SMTP_URL: rules are kept, mails are logged as skipped. */
  readonly configured: boolean;
  send(mail: OutgoingMail): Promise<Accepted>;
  close(): void;
}

/** Without MP_SMTP_URL. */
export const unconfiguredMailer: Mailer = {
  configured: false,
  send: async () => {
    throw new MailRefused('mail is not configured (MP_SMTP_URL is unset)', true);
  },
  close: () => undefined,
};

export interface MailerOptions {
  url: string | undefined;
  from: string;
  /** PEM of extra CAs to trust besides the system roots (NODE_EXTRA_CA_CERTS). */
  extraCa?: string[];
  /** Per connection step (connect, greeting, each command). */
  timeoutMs?: number;
}

/**
 * Mails through the SMTP server of MP_SMTP_URL with nodemailer: smtps:// speaks TLS from the
 * start; smtp:// must upgrade with STARTTLS (requireTLS), unless the URL itself says
 * ?requireTLS=false (a relay on the same host). Certificates are verified against the system roots
 * and NODE_EXTRA_CA_CERTS. A pool of a few connections serves the mails of one sending round.
 */
export function createMailer(opts: MailerOptions): Mailer {
  if (!opts.url) return unconfiguredMailer;
  const timeout = opts.timeoutMs ?? 30_000;
  const transport = nodemailer.createTransport({
    url: opts.url,
    pool: true,
    maxConnections: 3,
    requireTLS: true,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    tls: { minVersion: 'TLSv1.2', ...(opts.extraCa?.length ? { ca: [...rootCertificates, ...opts.extraCa] } : {}) },
  });
  return {
    configured: true,
    async send(mail) {
      try {
        const info = await transport.sendMail({
          from: opts.from,
          to: mail.to,
          ...(mail.envelopeTo ? { envelope: { from: opts.from, to: mail.envelopeTo } } : {}),
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: mail.messageId,
          ...(mail.attachments?.length ? { attachments: mail.attachments } : {}),
        });
        const rejected = ((info.rejected ?? []) as (string | { address: string })[]).map((a) => (typeof a === 'string' ? a : a.address));
        return { response: String(info.response ?? '').slice(0, 500), rejected };
      } catch (err) {
        const e = err as Error & { responseCode?: number };
        // 5xx: the server refuses this mail for good (unknown mailbox, policy); anything else
        // (4xx, connection, TLS, timeout) may pass later.
        const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
        throw new MailRefused(e.message.slice(0, 500), permanent);
      }
    },
    close: () => transport.close(),
  };
}
