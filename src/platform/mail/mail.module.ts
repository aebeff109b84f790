import { Global, Module } from '@nestjs/common';
import { Mailer } from './mailer';

/** Outgoing e-mail: SMTP_URL, or .eml files under DATA_DIR/outbox/. */
@Global()
@Module({ providers: [Mailer], exports: [Mailer] })
export class MailModule {}
