import { Global, Module } from '@nestjs/common';
import { KeyRing } from './keyring';

@Global()
@Module({ providers: [KeyRing], exports: [KeyRing] })
export class CryptoModule {}
