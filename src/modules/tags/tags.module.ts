import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TagEntity } from './entities/tag.entity';
import { TagsService } from './tags.service';

/** Tags of courses, registrations, invitations, learners, dispatches and destinations; each module serves its own tag routes. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([TagEntity])],
  providers: [TagsService],
  exports: [TagsService],
})
export class TagsModule {}
