export { createMailer, MailRefused, unconfiguredMailer } from './mailer.js';
export type { Accepted, MailAttachment, Mailer, MailerOptions, OutgoingMail } from './mailer.js';
export { mailConfigSchema, readExtraCa } from './settings.js';
