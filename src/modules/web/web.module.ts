import { Module } from '@nestjs/common';
import { WebController } from './web.controller';

/** The web pages LCDS serves (built by Vite from web/ into dist/web); they use the public API like any client. */
@Module({ controllers: [WebController] })
export class WebModule {}
