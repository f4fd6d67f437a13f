import type { Database } from '@mp/db';
import { MailRefused, type MailAttachment, type Mailer } from '@mp/mail';
import { CONTENT_TYPES, readStoredDocument } from './file-store.js';
import type { ReportMailer, ScheduledReportMail } from './mailer.js';
import type { Format } from './validation.js';

/** What a scheduled report's mail may carry as attachments, all documents together (MP_REPORTS_MAIL_ATTACH_MAX_MB). */
export const DEFAULT_ATTACH_MAX_BYTES = 10 * 1024 * 1024;

/**
 * Mails a generated scheduled report to its schedule's list (ADR 0115): one message, the list in
 * the envelope and not in the headers (a client's distribution list does not see itself), the
 * documents attached while they fit in `attachMaxBytes` together (PDF first), the others named
 * with how to download them. The Message-ID is the report's, so a message sent again after a crash
 * between the server's answer and our commit is recognisably the same.
 */
export class SmtpReportMailer implements ReportMailer {
  constructor(
    private readonly db: Database,
    private readonly mailer: Mailer,
    private readonly attachMaxBytes = DEFAULT_ATTACH_MAX_BYTES,
  ) {}

  async sendScheduledReport(mail: ScheduledReportMail): Promise<{ rejected: string[] }> {
    const attachments: MailAttachment[] = [];
    const left: string[] = [];
    let room = this.attachMaxBytes;
    const formats = [...mail.formats].sort((a, b) => (a === 'pdf' ? -1 : b === 'pdf' ? 1 : 0)) as Format[];
    for (const format of formats) {
      const content = await readStoredDocument(this.db, mail.reportId, format, room);
      if (!content) {
        left.push(format);
        continue;
      }
      room -= content.length;
      attachments.push({ filename: `${fileStem(mail.title)}.${format}`, contentType: CONTENT_TYPES[format], content });
    }
    const { text, html } = body(mail, attachments, left);
    try {
      const accepted = await this.mailer.send({
        to: 'undisclosed-recipients:;',
        envelopeTo: mail.recipients,
        subject: mail.title,
        text,
        html,
        messageId: `<${mail.reportId}@reports.monitoring-platform>`,
        attachments,
      });
      return { rejected: accepted.rejected };
    } catch (err) {
      // Refused for good (every recipient, or the message): marked mailed with the refusal kept,
      // since trying again gets the same answer; anything else is tried again at the next tick.
      if (err instanceof MailRefused && err.permanent) return { rejected: mail.recipients };
      throw err;
    }
  }
}

/** A file name a mail client shows: the title without characters file systems refuse. */
function fileStem(title: string): string {
  const stem = [...title]
    .map((c) => (c.charCodeAt(0) < 0x20 || '\\/:*?"<>|'.includes(c) ? ' ' : c))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  return stem.slice(0, 120) || 'report';
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function body(mail: ScheduledReportMail, attachments: MailAttachment[], left: string[]): { text: string; html: string } {
  const lines = [
    `${mail.title}`,
    '',
    `Project: ${mail.projectName}`,
    `Period: ${mail.from} to ${mail.to} (times in the report are in ${mail.timeZone})`,
    `Report: ${mail.reportId}`,
    '',
    attachments.length ? `Attached: ${attachments.map((a) => a.filename).join(', ')}.` : 'No document is attached.',
    ...(left.length
      ? [
          `Too large to attach: ${left.join(', ')}. Download ${left.length === 1 ? 'it' : 'them'} in the console (Reports) or with ` +
            `GET /v3/reports/${mail.reportId}/file?format=${left[0]}.`,
        ]
      : []),
    '',
    'You receive this report because your address is on the report schedule of this project. Ask the project team to remove it.',
  ];
  const text = lines.join('\n');
  const html = `<!doctype html><html><body>${lines.map((l) => (l ? `<p>${escapeHtml(l)}</p>` : '')).join('')}</body></html>`;
  return { text, html };
}
