import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  envelopeTo: string[];
  raw: string;
  parsed: ParsedMail;
}

export interface SmtpSink {
  url: string;
  port: number;
  received: ReceivedMail[];
  /** Recipients refused with a 550 at RCPT TO. */
  rejectRecipients: Set<string>;
  /** The next this-many messages are refused with a 451 (a temporary failure) at DATA. */
  failNext: number;
  /** Each message is answered after this long (a slow server). */
  delayMs: number;
  close(): Promise<void>;
}

/** A real SMTP server in the test process (smtp-server, no auth, no TLS), keeping every message it accepts. */
export async function startSmtpSink(options: { keepParsed?: boolean } = {}): Promise<SmtpSink> {
  const keepParsed = options.keepParsed !== false;
  const sink: Omit<SmtpSink, 'url' | 'port' | 'close'> = { received: [], rejectRecipients: new Set(), failNext: 0, delayMs: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    size: 10 * 1024 * 1024,
    onRcptTo(address, _session, callback) {
      if (sink.rejectRecipients.has(address.address.toLowerCase())) {
        const err = Object.assign(new Error('No such user here'), { responseCode: 550 });
        return callback(err);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => void later(sink.delayMs).then(() => {
        if (sink.failNext > 0) {
          sink.failNext--;
          return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const envelopeTo = session.envelope.rcptTo.map((r) => r.address);
        if (!keepParsed) {
          sink.received.push({ envelopeTo, raw: '', parsed: undefined as unknown as ParsedMail });
          return callback();
        }
        simpleParser(raw).then(
          (parsed) => {
            sink.received.push({ envelopeTo, raw, parsed });
            callback();
          },
          (err: Error) => callback(err),
        );
      }));
    },
  });
  // A client that vanishes mid-session (a process killed while it sends) resets its connection: smtp-server reports it
  // as an 'error' event, which with no listener would be thrown in the test process. A real server logs it and goes on.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return Object.assign(sink as SmtpSink, {
    url: `smtp://127.0.0.1:${port}`,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

function later(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

/** The link of an invitation e-mail (the text part's LCDS /invite/u/ address). */
export function inviteLinkOf(mail: ReceivedMail): string {
  const m = /(https?:\/\/\S+\/invite\/u\/[A-Za-z0-9_-]+)/.exec(mail.parsed.text ?? '');
  if (!m) throw new Error('no invitation link in the e-mail');
  return m[1];
}
