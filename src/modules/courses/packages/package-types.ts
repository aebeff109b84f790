/** The standards of CourseSchema.courseLearningStandard that LCDS imports. */
export type LearningStandard =
  | 'SCORM12'
  | 'SCORM20042NDEDITION'
  | 'SCORM20043RDEDITION'
  | 'SCORM20044THEDITION'
  | 'AICC'
  | 'XAPI'
  | 'CMI5'
  /** Media file courses (a single PDF, audio or video file): SCORM Cloud reports them with `UNKNOWN`; see `packageData.media`. */
  | 'UNKNOWN';

/** Read access to the files of a package being imported (an extracted zip in the content store, or a single file). */
export interface PackageSource {
  /** Every file path, relative to the package root, with forward slashes, no leading slash. */
  files(): string[];
  has(path: string): boolean;
  /** UTF-8 text of a file (BOM stripped). Throws when missing. */
  readText(path: string): Promise<string>;
}

/** CourseActivitySchema, the tree GetCourse returns as `rootActivity`. */
export interface CourseActivity {
  externalIdentifier: string;
  itemIdentifier: string;
  resourceIdentifier?: string;
  activityType: 'UNKNOWN' | 'AGGREGATION' | 'SCO' | 'ASSET' | 'OBJECTIVE';
  href?: string;
  scaledPassingScore?: string;
  title: string;
  children: CourseActivity[];
}

/** MetadataSchema */
export interface CourseMetadata {
  title?: string;
  titleLanguage?: string;
  description?: string;
  descriptionLanguage?: string;
  duration?: string;
  typicalTime?: string;
  keywords?: string[];
}

/**
 * What the player needs to launch an activity, kept as parsed (JSON) with the course version. Each standard
 * adds its own fields under `data`; the sequencing data of SCORM 2004 (imsss:, adlseq:, adlnav:) is kept whole.
 */
export interface LaunchableActivity {
  /** Same id as the CourseActivity's externalIdentifier. */
  id: string;
  title: string;
  /** Path relative to the package root, or an absolute URL (AICC, xAPI, cmi5 may launch remote content). */
  href: string;
  /** Query parameters from the manifest (SCORM `parameters`, cmi5 url query) to append at launch. */
  parameters?: string;
  data: Record<string, unknown>;
}

export interface ParsedPackage {
  standard: LearningStandard;
  title: string;
  metadata: CourseMetadata;
  rootActivity: CourseActivity;
  /** Launchable activities (SCOs, assets with href, AUs) in tree order. */
  launchables: LaunchableActivity[];
  /** xAPI/cmi5 activity id of the course, when the package names one. */
  xapiActivityId?: string;
  /** Standard-specific package-level data kept for the player (organization sequencing, cmi5 blocks, AICC course data). */
  packageData: Record<string, unknown>;
  /** Problems a course author should know about that did not stop the import. */
  warnings: string[];
  courseLanguages: string[];
}

/** A package that cannot be imported; the message is shown to the course author as the import job's error. */
export class PackageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PackageError';
  }
}
