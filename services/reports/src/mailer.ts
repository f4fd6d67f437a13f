/**
 * The mailing step of scheduled reports (ADR 0109, 0115). With MP_SMTP_URL set the service mails
 * through the platform's SMTP module (@mp/mail; report-mail.ts); tests may give another mailer.
 * Without either, scheduled reports are generated and kept, and not mailed.
 */
export interface ScheduledReportMail {
  tenantId: string;
  environment: string;
  reportId: string;
  scheduleId: string;
  title: string;
  projectName: string;
  /** The period, ISO instants, and the zone the documents show it in. */
  from: string;
  to: string;
  timeZone: string;
  recipients: string[];
  /** Formats of the report's documents (GET /v3/reports/{id}/file?format=…). */
  formats: string[];
}

export interface ReportMailer {
  /**
   * Resolves once the mail server took the message (or refused it for good): the report is then
   * marked mailed. `rejected` names the recipients the server refused; they are written on the
   * schedule's `last_error`. Throws when trying again may help (the report is offered again).
   */
  sendScheduledReport(mail: ScheduledReportMail): Promise<{ rejected: string[] } | void>;
}
