/** Options shared by every package parser. */
export interface ParseOptions {
  /**
   * Whether a launch file that a manifest references but the package lacks fails the import (default `true`). With
   * `false` it becomes a warning: for manifests imported without their content (test suites, remote content).
   */
  checkFiles?: boolean;
}

export interface PackageHint {
  /** The name of the uploaded file (e.g. `course.zip`, `cmi5.xml`, `intro.mp4`). */
  fileName?: string;
  contentType?: string;
}
