// Outgoing email (docs/accounts.md "Email"): nodemailer over SMTP_URL. Without SMTP_URL nothing is sent: the
// message's link (sign-in, invitation, confirmation) is written to the server log so an operator can pass it
// on; a message body is never logged. Every message is plain text, some with a file attached (a plant report's PDF).
import nodemailer, { type Transporter } from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** What the message is (login, invitation, email_change, account_deleted): the log line without SMTP. */
  kind: string;
  /** The link the message carries, if any: logged when there is no SMTP. */
  link?: string;
  /** Files sent with the message (the plant report's PDF). */
  attachments?: { filename: string; contentType: string; content: Buffer }[];
}

export interface Mailer {
  /** True when messages go out over SMTP (false: links are logged). */
  readonly smtp: boolean;
  send(mail: Mail): Promise<void>;
  /** Resolves once every send started so far has ended (sent or failed): what a test awaits before "no mail". */
  settled(): Promise<void>;
  close(): void;
}

export interface MailerOptions {
  smtpUrl: string | null;
  from: string;
  /** Where the link goes without SMTP, and where a failed send is reported. */
  info: (obj: Record<string, unknown>, msg: string) => void;
  warn: (msg: string, err: Error) => void;
}

export function createMailer(opts: MailerOptions): Mailer {
  const transport: Transporter | null = opts.smtpUrl ? nodemailer.createTransport(opts.smtpUrl) : null;
  const inFlight = new Set<Promise<unknown>>();
  return {
    smtp: transport !== null,
    async send(mail) {
      if (!transport) {
        opts.info(
          { mail: mail.kind, link: mail.link ?? null },
          'no SMTP_URL configured: email not sent; its link is logged',
        );
        return;
      }
      const sending = transport.sendMail({
        from: opts.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        attachments: mail.attachments,
      });
      inFlight.add(sending);
      try {
        await sending;
      } finally {
        inFlight.delete(sending);
      }
    },
    async settled() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    close() {
      transport?.close();
    },
  };
}
