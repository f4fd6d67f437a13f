import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { testCertificate } from '@mp/testing';

export interface ReceivedMail {
  from: string;
  /** The To header's addresses. */
  to: string[];
  /** The recipients the server was asked to deliver to and accepted (RCPT TO), whatever the headers say. */
  envelopeTo: string[];
  attachments: { filename: string; contentType: string; content: Buffer }[];
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

/** An SMTP reply that refuses a recipient: 4xx (try later) or 5xx (for good). */
export type Refusal = { code: number; message: string } | null;

export interface TestSmtpServer {
  /** smtps:// with the server's user and password: TLS from the start, the test certificate. */
  url: string;
  /** Every mail accepted, parsed, in arrival order. */
  mails: ReceivedMail[];
  /** How often each recipient was offered (accepted or refused). */
  offered: Map<string, number>;
  /** Mails accepted for one recipient (in the envelope). */
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}

const USER = 'mailer';
const PASSWORD = 'mail secret';

/**
 * A real SMTP server on 127.0.0.1 in this process (smtp-server): TLS from the start with the test
 * certificate, authentication required, each accepted mail parsed (mailparser) and kept. `refuse`
 * decides per recipient and offer (1, 2, …) whether to refuse it, for retry tests.
 */
export async function startSmtpServer(opts: { refuse?: (address: string, offer: number) => Refusal } = {}): Promise<TestSmtpServer> {
  const tls = await testCertificate();
  const mails: ReceivedMail[] = [];
  const offered = new Map<string, number>();
  const server = new SMTPServer({
    secure: true,
    key: tls.key,
    cert: tls.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) callback(null, { user: USER });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      const offer = (offered.get(address.address) ?? 0) + 1;
      offered.set(address.address, offer);
      const refusal = opts.refuse?.(address.address, offer) ?? null;
      if (!refusal) return callback();
      callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
    },
    onData(stream, session, callback) {
      const envelopeTo = session.envelope.rcptTo.map((a) => a.address);
      simpleParser(stream).then(
        (parsed) => {
          const to = parsed.to ? (Array.isArray(parsed.to) ? parsed.to : [parsed.to]).flatMap((a) => a.value.map((v) => v.address ?? '')) : [];
          mails.push({
            from: parsed.from?.text ?? '',
            to,
            envelopeTo,
            attachments: parsed.attachments.map((a) => ({ filename: a.filename ?? '', contentType: a.contentType, content: a.content })),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            messageId: parsed.messageId ?? '',
          });
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtps://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`,
    mails,
    offered,
    to: (address) => mails.filter((m) => m.envelopeTo.includes(address)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The acknowledge link and the point link a mail's text carries. */
export function linksOf(mail: ReceivedMail): { ack: string; point: string } {
  const ack = /https:\/\/\S+\/v3\/alarm-ack\/\S+/.exec(mail.text)?.[0];
  const point = /https:\/\/\S+\/console#\/points\/\S+/.exec(mail.text)?.[0];
  if (!ack || !point) throw new Error(`mail without links: ${mail.text}`);
  return { ack, point };
}
