// The mail layer as the rest of the tool uses it: the settings checked once at start, the mailer that sends (or
// writes) the invitations and reminders, and the rendering a preview shows.
export {
  describeDelivery,
  MAIL_OPTIONS,
  type MailSettings,
  type MailSettingsInput,
  resolveMailSettings,
} from './mailSettings.js';
export { createMailer, type MailClock, type Mailer, type MailToSend, type SendOutcome } from './Mailer.js';
export {
  defaultTemplatesDir,
  loadTemplates,
  type MailKind,
  type MailValues,
  renderMail,
} from './templates.js';
