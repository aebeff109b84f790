import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LaunchLinks } from './launch-links';
import { PlayerSessionEntity } from './player-session.entity';

/**
 * The player's launch link service (LaunchLinks), on its own so that courses (previews) and registrations
 * (BuildRegistrationLaunchLink) can import it without importing the player, which depends on them.
 */
@Module({
  imports: [TypeOrmModule.forFeature([PlayerSessionEntity])],
  providers: [LaunchLinks],
  exports: [LaunchLinks],
})
export class LaunchLinksModule {}
