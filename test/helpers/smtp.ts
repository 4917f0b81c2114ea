// A real SMTP server in the test process (the smtp-server package), for every test that sends email: point the
// app's SMTP_URL at `url`, then read what arrived with `waitFor` and take a link out of it with `linkIn`.
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  to: string[];
  from: string;
  /** The raw message (headers and body) as received. */
  raw: string;
  subject: string;
  /** The decoded text body (quoted-printable and base64 undone; of a multipart message, its first text part). */
  text: string;
  /** The parts sent as attachments, decoded. */
  attachments: ReceivedAttachment[];
}

export interface ReceivedAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface TestSmtp {
  url: string;
  messages: ReceivedMail[];
  /** The first message to `to` (after `after` messages) matching `match`; waits up to `timeoutMs`. */
  waitFor(to: string, opts?: { match?: (m: ReceivedMail) => boolean; timeoutMs?: number }): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** One MIME entity: its headers (unfolded) and its body, decoded to bytes. */
function entity(raw: string): { header: (name: string) => string; body: Buffer; rawBody: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const rawBody = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
  const enc = header('Content-Transfer-Encoding').toLowerCase();
  const body =
    enc === 'quoted-printable'
      ? Buffer.from(
          rawBody
            .replace(/=\r?\n/g, '')
            .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
          'latin1',
        )
      : enc === 'base64'
        ? Buffer.from(rawBody.replace(/\s+/g, ''), 'base64')
        : Buffer.from(rawBody, 'utf8');
  return { header, body, rawBody };
}

/** The subject, the text (the first text/plain part of a multipart message) and the attachments. */
function decodeBody(raw: string): { subject: string; text: string; attachments: ReceivedAttachment[] } {
  const top = entity(raw);
  const attachments: ReceivedAttachment[] = [];
  let text: string | null = null;
  const walk = (e: ReturnType<typeof entity>) => {
    const type = e.header('Content-Type');
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (/^multipart\//i.test(type) && boundary) {
      for (const part of e.rawBody.split(`--${boundary}`).slice(1)) {
        if (part.startsWith('--')) break;
        walk(entity(part.replace(/^\r\n/, '')));
      }
    } else if (/attachment/i.test(e.header('Content-Disposition'))) {
      attachments.push({
        contentType: type.split(';')[0].trim().toLowerCase(),
        filename: /filename="?([^";]+)"?/i.exec(e.header('Content-Disposition'))?.[1] ?? '',
        content: e.body,
      });
    } else if (text === null) text = e.body.toString('utf8');
  };
  walk(top);
  let subject = top.header('Subject');
  const encoded = /^=\?utf-8\?([BQ])\?(.*)\?=$/i.exec(subject);
  if (encoded) {
    subject =
      encoded[1].toUpperCase() === 'B'
        ? Buffer.from(encoded[2], 'base64').toString('utf8')
        : encoded[2]
            .replace(/_/g, ' ')
            .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
  return { subject, text: text ?? '', attachments };
}

export async function startSmtp(): Promise<TestSmtp> {
  const messages: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          raw,
          ...decodeBody(raw),
        });
        for (const w of waiters.splice(0)) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(to, opts = {}) {
      const deadline = Date.now() + (opts.timeoutMs ?? 5000);
      const find = () => messages.find((m) => m.to.includes(to.toLowerCase()) && (!opts.match || opts.match(m)));
      for (;;) {
        const m = find();
        if (m) return m;
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(
            `no email to ${to} within ${opts.timeoutMs ?? 5000} ms (received: ${messages.map((x) => `${x.to.join(',')}: ${x.subject}`).join('; ') || 'none'})`,
          );
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 200));
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a message's text whose path starts with `path` (e.g. /api/v1/auth/callback). */
export function linkIn(mail: ReceivedMail, path: string): URL {
  for (const m of mail.text.matchAll(/https?:\/\/[^\s<>"]+/g)) {
    const u = new URL(m[0]);
    if (u.pathname.startsWith(path)) return u;
  }
  throw new Error(`no link to ${path} in the message "${mail.subject}": ${mail.text.slice(0, 500)}`);
}
