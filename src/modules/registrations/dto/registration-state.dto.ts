import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsISO8601, IsNumber, IsObject, IsOptional, IsString, Max, Min, ValidateBy, ValidateNested } from 'class-validator';
import { parseScorm12Time } from '../tracked-time';
import { COMPLETION, SUCCESS } from '../registration-types';

/*
 * initialRegistrationState is a whole RegistrationSchema, so that a client may send back what GET
 * /registrations/{id} gave it. Every field is checked here: the player reads the stored tree as typed, and a
 * wrong type stored once breaks every later launch. The tree nests (children), bounded by the JSON depth limit of
 * the body parser (MAX_JSON_DEPTH), which keeps class-transformer and the validator from recursing any deeper.
 */

const RUNTIME_OBJECTIVE_COMPLETION = ['UNKNOWN', 'COMPLETED', 'INCOMPLETE', 'NOT_ATTEMPTED', 'BROWSED'] as const;

/** Optional, and when given a nested object (or, with `each`, an array of them) of the class. */
function Nested(type: () => new () => object, each = false): PropertyDecorator {
  return (target, key) => {
    IsOptional()(target, key);
    if (each) IsArray()(target, key);
    IsObject(each ? { each, message: '$property must be an array of objects' } : {})(target, key);
    ValidateNested({ each })(target, key);
    Type(type)(target, key);
  };
}

/** A time of the activity tree as the player reads it back (trackedSeconds): `HHHH:MM:SS[.SS]`. */
function IsTrackedTime(): PropertyDecorator {
  return ValidateBy({
    name: 'isTrackedTime',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parseScorm12Time(value) !== null,
      defaultMessage: () => '$property must be a time span HHHH:MM:SS[.SS], e.g. 0000:01:02.50',
    },
  });
}

/** What is wrong with a list of runtime records, as the end of a message naming the property; null when nothing is. */
function recordsProblem(value: unknown, lists: boolean, enums: Record<string, readonly string[]>): string | null {
  if (!Array.isArray(value)) return ' must be an array';
  for (const [i, row] of value.entries()) {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) return ` must be an array of objects (not so at ${i})`;
    for (const [k, v] of Object.entries(row as Record<string, unknown>)) {
      const allowed = enums[k];
      if (allowed && !(typeof v === 'string' && allowed.includes(v))) return ` must have ${k} one of the following values: ${allowed.join(', ')} (not so at ${i}.${k})`;
      if (typeof v === 'string') continue;
      if (lists && Array.isArray(v) && v.every((x) => typeof x === 'string')) continue;
      return ` must be records of strings${lists ? ' or string lists' : ''} (not so at ${i}.${k})`;
    }
  }
  return null;
}

/**
 * runtimeInteractions / runtimeObjectives: records of strings. Their keys are not checked against the schema's
 * names: the player stores what the SCO reported under the data model's own names (`learner_response`,
 * `score.scaled`, SCORM's lowercase interaction types), and a GET's tree must be accepted back.
 */
function IsRuntimeRecords(lists: boolean, enums: Record<string, readonly string[]> = {}): PropertyDecorator {
  return ValidateBy({
    name: 'isRuntimeRecords',
    validator: {
      validate: (value: unknown) => recordsProblem(value, lists, enums) === null,
      defaultMessage: (args) => `$property${recordsProblem(args?.value, lists, enums) ?? ' is invalid'}`,
    },
  });
}

/** ScoreSchema */
export class ScoreDto {
  @ApiPropertyOptional({ minimum: -1, maximum: 1 }) @IsOptional() @IsNumber() @Min(-1) @Max(1) scaled?: number;
}

/** CompletionAmountSchema */
export class CompletionAmountDto {
  @ApiPropertyOptional({ minimum: 0, maximum: 1 }) @IsOptional() @IsNumber() @Min(0) @Max(1) scaled?: number;
}

/** ObjectiveSchema */
export class ObjectiveDto {
  @ApiPropertyOptional() @IsOptional() @IsString() id?: string;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() primary?: boolean;
  @ApiPropertyOptional({ type: () => ScoreDto }) @Nested(() => ScoreDto) score?: ScoreDto;
  @ApiPropertyOptional() @IsOptional() @IsNumber() scoreMax?: number;
  @ApiPropertyOptional() @IsOptional() @IsNumber() scoreMin?: number;
  @ApiPropertyOptional() @IsOptional() @IsNumber() scoreRaw?: number;
  @ApiPropertyOptional() @IsOptional() @IsNumber() previousScoreScaled?: number;
  @ApiPropertyOptional() @IsOptional() @IsNumber() firstScoreScaled?: number;
  @ApiPropertyOptional() @IsOptional() @IsNumber() progressMeasure?: number;
  @ApiPropertyOptional() @IsOptional() @IsString() firstSuccessTimeStamp?: string;
  @ApiPropertyOptional({ enum: COMPLETION }) @IsOptional() @IsIn(COMPLETION) objectiveCompletion?: (typeof COMPLETION)[number];
  @ApiPropertyOptional({ enum: SUCCESS }) @IsOptional() @IsIn(SUCCESS) objectiveSuccess?: (typeof SUCCESS)[number];
  @ApiPropertyOptional({ enum: SUCCESS }) @IsOptional() @IsIn(SUCCESS) previousObjectiveSuccess?: (typeof SUCCESS)[number];
}

/** StaticPropertiesSchema */
export class StaticPropertiesDto {
  @ApiPropertyOptional() @IsOptional() @IsString() completionThreshold?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() launchData?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() maxTimeAllowed?: string;
  @ApiPropertyOptional() @IsOptional() @IsNumber() scaledPassingScore?: number;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() scaledPassingScoreUsed?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsString() timeLimitAction?: string;
}

/** LearnerPreferenceSchema */
export class LearnerPreferenceDto {
  @ApiPropertyOptional() @IsOptional() @IsNumber() audioLevel?: number;
  @ApiPropertyOptional() @IsOptional() @IsString() language?: string;
  @ApiPropertyOptional() @IsOptional() @IsNumber() deliverySpeed?: number;
  @ApiPropertyOptional() @IsOptional() @IsInt() audioCaptioning?: number;
}

/** CommentSchema */
export class CommentDto {
  @ApiPropertyOptional() @IsOptional() @IsString() value?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() location?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() dateTime?: string;
}

/** RuntimeSchema: its values are strings on the wire, scores included. */
export class RuntimeDto {
  @ApiPropertyOptional() @IsOptional() @IsString() completionStatus?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() credit?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() entry?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() exit?: string;
  @ApiPropertyOptional({ type: () => LearnerPreferenceDto }) @Nested(() => LearnerPreferenceDto) learnerPreference?: LearnerPreferenceDto;
  @ApiPropertyOptional() @IsOptional() @IsString() location?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() mode?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() progressMeasure?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() scoreScaled?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() scoreRaw?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() scoreMin?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() scoreMax?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() totalTime?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() timeTracked?: string;
  @ApiPropertyOptional({ enum: SUCCESS }) @IsOptional() @IsIn(SUCCESS) runtimeSuccessStatus?: (typeof SUCCESS)[number];
  @ApiPropertyOptional() @IsOptional() @IsString() suspendData?: string;
  @ApiPropertyOptional({ type: () => [CommentDto] }) @Nested(() => CommentDto, true) learnerComments?: CommentDto[];
  @ApiPropertyOptional({ type: () => [CommentDto] }) @Nested(() => CommentDto, true) lmsComments?: CommentDto[];
  @ApiPropertyOptional({ description: 'RuntimeInteractionSchema[]: records of strings (or string lists)' })
  @IsOptional()
  @IsRuntimeRecords(true)
  runtimeInteractions?: Array<Record<string, string | string[]>>;
  @ApiPropertyOptional({ description: 'RuntimeObjectiveSchema[]: records of strings' })
  @IsOptional()
  @IsRuntimeRecords(false, { runtimeObjectiveSuccessStatus: SUCCESS, runtimeObjectiveCompletionStatus: RUNTIME_OBJECTIVE_COMPLETION })
  runtimeObjectives?: Array<Record<string, string>>;
}

/** ActivityResultSchema */
export class ActivityResultDto {
  @ApiPropertyOptional() @IsOptional() @IsString() id?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() title?: string;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) attempts?: number;
  @ApiPropertyOptional({ enum: COMPLETION }) @IsOptional() @IsIn(COMPLETION) activityCompletion?: (typeof COMPLETION)[number];
  @ApiPropertyOptional({ enum: SUCCESS }) @IsOptional() @IsIn(SUCCESS) activitySuccess?: (typeof SUCCESS)[number];
  @ApiPropertyOptional({ type: () => ScoreDto }) @Nested(() => ScoreDto) score?: ScoreDto;
  @ApiPropertyOptional({ example: '0000:01:02.50' }) @IsOptional() @IsTrackedTime() timeTracked?: string;
  @ApiPropertyOptional({ type: () => CompletionAmountDto }) @Nested(() => CompletionAmountDto) completionAmount?: CompletionAmountDto;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() suspended?: boolean;
  @ApiPropertyOptional({ type: () => [ActivityResultDto] }) @Nested(() => ActivityResultDto, true) children?: ActivityResultDto[];
  @ApiPropertyOptional({ type: () => [ObjectiveDto] }) @Nested(() => ObjectiveDto, true) objectives?: ObjectiveDto[];
  @ApiPropertyOptional({ type: () => StaticPropertiesDto }) @Nested(() => StaticPropertiesDto) staticProperties?: StaticPropertiesDto;
  @ApiPropertyOptional({ type: () => RuntimeDto }) @Nested(() => RuntimeDto) runtime?: RuntimeDto;
}

/** CourseReferenceSchema */
export class CourseReferenceDto {
  @ApiPropertyOptional() @IsOptional() @IsString() id?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() title?: string;
  @ApiPropertyOptional() @IsOptional() @IsInt() version?: number;
}

/** LearnerSchema of the state: the registration's own learner is the body's, so only types are checked. */
export class StateLearnerDto {
  @ApiPropertyOptional() @IsOptional() @IsString() id?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() email?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() firstName?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() lastName?: string;
}

/** SharedDataEntrySchema */
export class SharedDataEntryDto {
  @ApiPropertyOptional() @IsOptional() @IsString() id?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() value?: string;
}

/**
 * RegistrationSchema as initialRegistrationState. Its progress fields start the first instance; identity,
 * references and dates of creation are the new registration's own, so only their types are checked.
 */
export class RegistrationStateDto {
  @ApiPropertyOptional() @IsOptional() @IsString() id?: string;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) instance?: number;
  @ApiPropertyOptional() @IsOptional() @IsString() xapiRegistrationId?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() dispatchId?: string;
  @ApiPropertyOptional({ format: 'date-time' }) @IsOptional() @IsISO8601({ strict: true }) updated?: string;
  @ApiPropertyOptional({ enum: COMPLETION }) @IsOptional() @IsIn(COMPLETION) registrationCompletion?: (typeof COMPLETION)[number];
  @ApiPropertyOptional({ minimum: 0, maximum: 1 }) @IsOptional() @IsNumber() @Min(0) @Max(1) registrationCompletionAmount?: number;
  @ApiPropertyOptional({ enum: SUCCESS }) @IsOptional() @IsIn(SUCCESS) registrationSuccess?: (typeof SUCCESS)[number];
  @ApiPropertyOptional({ type: () => ScoreDto }) @Nested(() => ScoreDto) score?: ScoreDto;
  @ApiPropertyOptional({ minimum: 0 }) @IsOptional() @IsNumber() @Min(0) @Max(Number.MAX_SAFE_INTEGER) totalSecondsTracked?: number;
  @ApiPropertyOptional({ format: 'date-time' }) @IsOptional() @IsISO8601({ strict: true }) firstAccessDate?: string;
  @ApiPropertyOptional({ format: 'date-time' }) @IsOptional() @IsISO8601({ strict: true }) lastAccessDate?: string;
  @ApiPropertyOptional({ format: 'date-time' }) @IsOptional() @IsISO8601({ strict: true }) completedDate?: string;
  @ApiPropertyOptional({ format: 'date-time' }) @IsOptional() @IsISO8601({ strict: true }) createdDate?: string;
  @ApiPropertyOptional({ type: () => CourseReferenceDto }) @Nested(() => CourseReferenceDto) course?: CourseReferenceDto;
  @ApiPropertyOptional({ type: () => StateLearnerDto }) @Nested(() => StateLearnerDto) learner?: StateLearnerDto;
  @ApiPropertyOptional({ type: [String] }) @IsOptional() @IsArray() @IsString({ each: true }) tags?: string[];
  @ApiPropertyOptional({ type: () => [ObjectiveDto] }) @Nested(() => ObjectiveDto, true) globalObjectives?: ObjectiveDto[];
  @ApiPropertyOptional({ type: () => [SharedDataEntryDto] }) @Nested(() => SharedDataEntryDto, true) sharedData?: SharedDataEntryDto[];
  @ApiPropertyOptional() @IsOptional() @IsString() suspendedActivityId?: string;
  @ApiPropertyOptional({ type: () => ActivityResultDto }) @Nested(() => ActivityResultDto) activityDetails?: ActivityResultDto;
}
