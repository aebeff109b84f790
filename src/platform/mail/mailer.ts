import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport, type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import type StreamTransport from 'nodemailer/lib/stream-transport';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';

/** One message to one recipient. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Without angle brackets; stable per message so a receiver can tell a resent copy. */
  messageId: string;
  /** A mailto: or https: address the recipient can use to stop such messages (List-Unsubscribe). */
  unsubscribe?: string;
  /** Groups the outbox files of one batch (a folder name). */
  batch?: string;
}

/** SMTP refused this recipient or message for good (a 5xx answer, or an address it cannot deliver to). */
export class PermanentMailError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentMailError';
  }
}

/**
 * Hands e-mails to SMTP (`SMTP_URL`, pooled connections) or, without one, writes each as an .eml file under
 * `DATA_DIR/outbox/` (the embedded default, so a newcomer can open them). A temporary failure (4xx, a connection
 * that fails) throws an ordinary Error for the caller's retry; a permanent one throws PermanentMailError. Messages
 * and recipients are never logged.
 */
@Injectable()
export class Mailer implements OnModuleDestroy {
  private readonly logger = new Logger(Mailer.name);
  private transport: Transporter | null = null;
  private outboxAnnounced = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get usesOutbox(): boolean {
    return this.config.mail.smtpUrl === null;
  }

  async send(message: MailMessage): Promise<void> {
    const mail = {
      from: this.config.mail.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      messageId: `<${message.messageId}>`,
      date: new Date(),
      ...(message.unsubscribe ? { list: { unsubscribe: message.unsubscribe } } : {}),
    };
    if (this.usesOutbox) return this.writeToOutbox(message, mail);
    try {
      await this.smtp().sendMail(mail);
    } catch (err) {
      throw classify(err);
    }
  }

  onModuleDestroy(): void {
    this.transport?.close();
    this.transport = null;
  }

  private smtp(): Transporter {
    if (!this.transport) {
      const url = new URL(this.config.mail.smtpUrl!);
      const options: SMTPPool.Options = {
        pool: true,
        host: url.hostname,
        port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
        secure: url.protocol === 'smtps:',
        ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
        maxConnections: 4,
        maxMessages: Infinity,
        connectionTimeout: 15_000,
        greetingTimeout: 15_000,
        socketTimeout: 60_000,
      };
      this.transport = createTransport(options);
    }
    return this.transport;
  }

  private async writeToOutbox(message: MailMessage, mail: Record<string, unknown>): Promise<void> {
    const options: StreamTransport.Options = { streamTransport: true, buffer: true, newline: 'windows' };
    const info = (await createTransport(options).sendMail(mail)) as { message: Buffer };
    const dir = join(this.config.mail.outboxDir, safeName(message.batch ?? 'mail'));
    await mkdir(dir, { recursive: true });
    // Named after the Message-ID: a message written again (a retried job) replaces its own file.
    const file = join(dir, `${createHash('sha256').update(message.messageId).digest('hex').slice(0, 24)}.eml`);
    await writeFile(file, info.message);
    if (!this.outboxAnnounced) {
      this.outboxAnnounced = true;
      this.logger.log({ msg: 'SMTP_URL is not set: e-mails are written as .eml files instead of being sent', outbox: this.config.mail.outboxDir });
    }
  }
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120) || 'mail';
}

/** SMTP 5xx and refused recipients are permanent; everything else (4xx, network, timeouts) is worth retrying. */
function classify(err: unknown): Error {
  const e = err as { responseCode?: number; code?: string; message?: string; rejected?: unknown[] };
  if (typeof e.responseCode === 'number' && e.responseCode >= 500) return new PermanentMailError(`SMTP refused the message (${e.responseCode})`);
  if (e.code === 'EENVELOPE' && (e.responseCode === undefined || e.responseCode >= 500)) return new PermanentMailError('SMTP refused the recipient');
  return err instanceof Error ? err : new Error(String(err));
}
