/**
 * `migrate.config.json`: the projects a migration can send to, and the source APIs it can
 * fetch from. Unknown keys are errors, so a typo such as `apikey` is caught instead of
 * silently ignored.
 */
import { z } from 'zod';
import { caselessEnum, baseUrlField as url, envNameField as envName } from './config-fields.js';
import { sourcesSchema } from './source-config-schema.js';

export const projectConfigSchema = z
  .object({
    /** `test` projects take rehearsals; `production` ones only after a test import. */
    role: caselessEnum(['test', 'production']),
    /** Ingestion URL. Give this or `region`. */
    host: url.optional(),
    region: caselessEnum(['us', 'eu']).optional(),
    /** Project API key (phc_...), inline or via `apiKeyEnv`. */
    apiKey: z.string().min(1).optional(),
    apiKeyEnv: envName.optional(),
    /** Management API URL; derived from `host` or `region` when absent. */
    apiHost: url.optional(),
    projectId: z
      .union([z.string().regex(/^\d+$/, 'must be a number'), z.number().int().positive()])
      .transform(String)
      .optional(),
    /** Personal API key (phx_...), inline or via `personalApiKeyEnv`. */
    personalApiKey: z.string().min(1).optional(),
    personalApiKeyEnv: envName.optional(),
  })
  .strict()
  .superRefine((project, ctx) => {
    if (project.host === undefined && project.region === undefined) {
      ctx.addIssue({ code: 'custom', path: ['host'], message: 'give "host" (the ingestion URL) or "region" (us | eu)' });
    }
    if (project.host !== undefined && project.region !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['region'], message: 'give "host" or "region", not both' });
    }
    if (project.apiKey !== undefined && project.apiKeyEnv !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['apiKeyEnv'], message: 'give "apiKey" or "apiKeyEnv", not both' });
    }
    if (project.personalApiKey !== undefined && project.personalApiKeyEnv !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['personalApiKeyEnv'], message: 'give "personalApiKey" or "personalApiKeyEnv", not both' });
    }
    if (project.apiKey?.startsWith('phx_')) {
      ctx.addIssue({ code: 'custom', path: ['apiKey'], message: 'this is a personal API key (phx_...); ingestion needs the project API key (phc_...)' });
    }
    if (project.personalApiKey?.startsWith('phc_')) {
      ctx.addIssue({ code: 'custom', path: ['personalApiKey'], message: 'this is a project API key (phc_...); the management API needs a personal API key (phx_...)' });
    }
  });

export const configSchema = z
  .object({
    projects: z.record(z.string().regex(/^[A-Za-z0-9_.-]+$/, 'project names use letters, digits, _ . -'), projectConfigSchema).default({}),
    /** Source APIs export-source fetches from (--from mixpanel-api, amplitude-api). */
    sources: sourcesSchema.optional(),
  })
  .strict();

export type ProjectConfig = z.infer<typeof projectConfigSchema>;
export type MigrateConfig = z.infer<typeof configSchema>;
