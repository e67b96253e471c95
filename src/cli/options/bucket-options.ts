/**
 * The flags of export-source for `s3://` and `gs://` sources, and the user's choices they make
 * with the config's `sources.buckets` (a flag wins over the config).
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { BucketChoices } from '../../buckets/bucket-settings.js';
import { isBucketUrl } from '../../buckets/bucket-url.js';
import { configPath, loadConfig } from '../../config/load-config.js';

export interface BucketFlags {
  endpointUrl?: string;
  profile?: string;
  config?: string;
}

export function bucketFlags(command: Command): Command {
  return command
    .option('--endpoint-url <url>', "s3:// and gs:// sources: an S3-compatible endpoint (MinIO, R2, ...; default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS; gs:// uses Google's)")
    .option('--profile <name>', 's3:// and gs:// sources: the profile of the shared AWS config and credentials files (default: AWS_PROFILE)');
}

/** The bucket choices of a run that names a bucket address; undefined when none does. */
export function toBucketInput(files: readonly string[], flags: BucketFlags, env: Readonly<Record<string, string | undefined>>): { choices: BucketChoices; env: typeof env } | undefined {
  if (!files.some(isBucketUrl)) return undefined;
  // The config is optional for buckets: the AWS conventions alone are enough.
  const config = flags.config !== undefined || existsSync(configPath(undefined, env)) ? loadConfig(flags.config).sources?.buckets : undefined;
  const choices: BucketChoices = {};
  const endpointUrl = flags.endpointUrl ?? config?.endpointUrl;
  const profile = flags.profile ?? config?.profile;
  if (endpointUrl !== undefined) choices.endpointUrl = endpointUrl;
  if (profile !== undefined) choices.profile = profile;
  if (config?.region !== undefined) choices.region = config.region;
  if (config?.accessKeyIdEnv !== undefined && config.secretAccessKeyEnv !== undefined) {
    choices.keyEnv = { accessKeyId: config.accessKeyIdEnv, secretAccessKey: config.secretAccessKeyEnv, ...(config.sessionTokenEnv === undefined ? {} : { sessionToken: config.sessionTokenEnv }) };
  }
  return { choices, env };
}
