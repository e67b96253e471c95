/**
 * The `sources` object of the config: the source APIs export-source fetches from (Mixpanel's
 * raw event export, Amplitude's Export API). Secrets come inline or, better, from the
 * environment, as project keys do; unknown keys are errors.
 */
import { z } from 'zod';
import { caselessEnum, baseUrlField as url, envNameField as envName } from './config-fields.js';

function oneOf(ctx: z.RefinementCtx, inline: string | undefined, env: string | undefined, field: string): void {
  if (inline !== undefined && env !== undefined) ctx.addIssue({ code: 'custom', path: [`${field}Env`], message: `give "${field}" or "${field}Env", not both` });
  if (inline === undefined && env === undefined) ctx.addIssue({ code: 'custom', path: [`${field}Env`], message: `give "${field}Env" (an environment variable holding it) or "${field}"` });
}

export const mixpanelSourceSchema = z
  .object({
    /** The project's id (Project Settings); every request names it. */
    projectId: z.union([z.string().regex(/^\d+$/, 'must be a number'), z.number().int().positive()]).transform(String),
    /** A service account's username; without one, `secret` is the project's API secret (older projects). */
    username: z.string().min(1).optional(),
    secret: z.string().min(1).optional(),
    secretEnv: envName.optional(),
    /** Data residency: `us` (data.mixpanel.com), `eu` (data-eu), `in` (data-in). Default us. */
    region: caselessEnum(['us', 'eu', 'in']).optional(),
    /** Base URL instead of the region's (a proxy, or a local stand-in in tests). */
    apiHost: url.optional(),
    /** --people: the group keys whose group profiles are read, each with its data_group_id (Project Settings, Group Keys). */
    groupProfiles: z.record(z.string().min(1), z.union([z.string().regex(/^\d+$/, 'must be a number'), z.number().int().nonnegative()]).transform(String)).optional(),
  })
  .strict()
  .superRefine((source, ctx) => oneOf(ctx, source.secret, source.secretEnv, 'secret'));

export const amplitudeSourceSchema = z
  .object({
    /** The project's API key (Settings, Projects). */
    apiKey: z.string().min(1),
    secretKey: z.string().min(1).optional(),
    secretKeyEnv: envName.optional(),
    /** Data residency: `us` (amplitude.com) or `eu` (analytics.eu.amplitude.com). Default us. */
    region: caselessEnum(['us', 'eu']).optional(),
    apiHost: url.optional(),
  })
  .strict()
  .superRefine((source, ctx) => oneOf(ctx, source.secretKey, source.secretKeyEnv, 'secretKey'));

/**
 * How `s3://` and `gs://` addresses are reached when the AWS conventions (the default credential
 * chain, AWS_ENDPOINT_URL_S3) are not what the user wants: keys come only from environment
 * variables named here, never inline.
 */
export const bucketsSourceSchema = z
  .object({
    /** An S3-compatible endpoint (MinIO, R2, GCS's https://storage.googleapis.com); --endpoint-url wins. */
    endpointUrl: url.optional(),
    /** The region asked first (a bucket elsewhere is followed). */
    region: z.string().min(1).optional(),
    /** A profile of the shared AWS config files; --profile wins. */
    profile: z.string().min(1).optional(),
    accessKeyIdEnv: envName.optional(),
    secretAccessKeyEnv: envName.optional(),
    sessionTokenEnv: envName.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if ((b.accessKeyIdEnv === undefined) !== (b.secretAccessKeyEnv === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['secretAccessKeyEnv'], message: 'give both "accessKeyIdEnv" and "secretAccessKeyEnv", or neither' });
    }
    if (b.sessionTokenEnv !== undefined && b.accessKeyIdEnv === undefined) ctx.addIssue({ code: 'custom', path: ['sessionTokenEnv'], message: 'needs "accessKeyIdEnv" and "secretAccessKeyEnv"' });
  });

export const sourcesSchema = z
  .object({
    mixpanel: mixpanelSourceSchema.optional(),
    amplitude: amplitudeSourceSchema.optional(),
    buckets: bucketsSourceSchema.optional(),
  })
  .strict();

export type MixpanelSourceConfig = z.infer<typeof mixpanelSourceSchema>;
export type AmplitudeSourceConfig = z.infer<typeof amplitudeSourceSchema>;
export type BucketsSourceConfig = z.infer<typeof bucketsSourceSchema>;
export type SourcesConfig = z.infer<typeof sourcesSchema>;
