/**
 * The mailing step of scheduled reports (ADR 0109). The reports service has no mail transport of
 * its own: the platform's SMTP module (MP_SMTP_URL, MP_MAIL_FROM; nodemailer, added for alarm
 * notifications) provides one, and the composition root passes it to startReportsService as
 * `mailer`. Without one, scheduled reports are generated and kept, and not mailed.
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
  /** Resolves once the message was handed to the mail server for every recipient; throws to be tried again. */
  sendScheduledReport(mail: ScheduledReportMail): Promise<void>;
}
