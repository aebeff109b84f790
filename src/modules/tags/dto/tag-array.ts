import { ArrayMaxSize, IsArray, IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_TAG_LENGTH, MAX_TAGS_PER_CALL } from '../tag-rules';

/** An optional list of tags in a request body (learnerTags, courseTags, registrationTags): at most MAX_TAGS_PER_CALL, each at most MAX_TAG_LENGTH. */
export function TagArray(): PropertyDecorator {
  return (target, key) => {
    IsOptional()(target, key);
    IsArray()(target, key);
    ArrayMaxSize(MAX_TAGS_PER_CALL)(target, key);
    IsString({ each: true })(target, key);
    MaxLength(MAX_TAG_LENGTH, { each: true })(target, key);
  };
}
