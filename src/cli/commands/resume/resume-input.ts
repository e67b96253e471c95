/** resume's options as the use case's input. Pure. */
import type { GivenSettings } from '../../../delivery/delivery-options.js';
import type { ResumeInput } from '../../../import/resume-import.js';
import type { ConfigOptions, StagingOptions } from '../../options/common-options.js';

export interface ResumeOptions extends StagingOptions, ConfigOptions {
  project?: string;
  quiet?: boolean;
  json?: boolean;
}

/** `given`: the delivery flags the user typed; they override the run's recorded ones. */
export function toResumeInput(options: ResumeOptions, given: GivenSettings): ResumeInput {
  return { staging: options.staging, config: options.config, project: options.project, given };
}
