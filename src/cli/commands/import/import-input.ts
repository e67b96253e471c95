/** import's options as the use case's input. Pure. */
import type { GivenSettings } from '../../../delivery/delivery-options.js';
import type { ImportInput } from '../../../import/import-project.js';
import type { ConfigOptions, StagingOptions } from '../../options/common-options.js';

export interface ImportOptions extends StagingOptions, ConfigOptions {
  project: string;
  sample?: number;
  skipTestFirst?: boolean;
  skipPreflight?: boolean;
  retryDeadLetters?: boolean;
  dryRun?: boolean;
  quiet?: boolean;
  json?: boolean;
}

/** `given`: the delivery flags the user typed (see givenSettings). */
export function toImportInput(options: ImportOptions, given: GivenSettings): ImportInput {
  return {
    staging: options.staging,
    config: options.config,
    project: options.project,
    sample: options.sample,
    skipTestFirst: options.skipTestFirst === true,
    skipPreflight: options.skipPreflight === true,
    retryDeadLetters: options.retryDeadLetters === true,
    given,
  };
}
