/**
 * From the config's `sources` to what a source API fetcher needs: the base URL, the Basic
 * credentials, and the settings they came from (named when the API refuses them). Secrets are
 * looked up in the environment here and registered for redaction at once, the encoded
 * credentials too.
 */
import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import { registerSecret } from '../util/redact.js';
import type { MigrateConfig } from './config-schema.js';
import { resolveManagement } from './resolve-project.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface SourceApiTarget {
  /** The source's name in the range ledger and in every read it stages: `mixpanel-api:12345`. */
  source: string;
  /** Base URL without a trailing slash. */
  baseUrl: string;
  /** The `Authorization` header's value (a registered secret). */
  authorization: string;
  /** The settings the credentials came from, for the message of a refusal. */
  credentialSettings: string;
}

export interface MixpanelTarget extends SourceApiTarget {
  projectId: string;
  /** The Query API's base URL (profiles, --people): the region's mixpanel.com, or apiHost. */
  queryBaseUrl: string;
  /** Group keys whose profiles --people reads, with Mixpanel's data_group_id of each. */
  groupProfiles: Record<string, string>;
}

export const MIXPANEL_HOSTS = { us: 'https://data.mixpanel.com', eu: 'https://data-eu.mixpanel.com', in: 'https://data-in.mixpanel.com' } as const;
export const MIXPANEL_QUERY_HOSTS = { us: 'https://mixpanel.com', eu: 'https://eu.mixpanel.com', in: 'https://in.mixpanel.com' } as const;
export const AMPLITUDE_HOSTS = { us: 'https://amplitude.com', eu: 'https://analytics.eu.amplitude.com' } as const;

function readSecret(path: string, inline: string | undefined, envVar: string | undefined, env: Env): string {
  if (inline !== undefined) return inline;
  const value = envVar === undefined ? undefined : env[envVar];
  if (value === undefined || value === '') throw new UsageError(`${path}Env: environment variable ${envVar} is not set`);
  return value;
}

function basic(user: string, password: string): string {
  const encoded = Buffer.from(`${user}:${password}`).toString('base64');
  registerSecret(encoded);
  return `Basic ${encoded}`;
}

function secretSetting(path: string, envVar: string | undefined): string {
  return envVar === undefined ? path : `${path}Env (${envVar})`;
}

function missing(what: string, file: string): UsageError {
  return new UsageError(`no "sources.${what}" in ${file}`, [`Add the ${what} source to the config (see docs/config.md): its credentials come from there.`]);
}

export function resolveMixpanel(config: MigrateConfig, file: string, env: Env = process.env): MixpanelTarget {
  const mixpanel = config.sources?.mixpanel;
  if (mixpanel === undefined) throw missing('mixpanel', file);
  const secret = readSecret('sources.mixpanel.secret', mixpanel.secret, mixpanel.secretEnv, env);
  registerSecret(secret);
  const secretName = secretSetting('sources.mixpanel.secret', mixpanel.secretEnv);
  return {
    source: `mixpanel-api:${mixpanel.projectId}`,
    projectId: mixpanel.projectId,
    baseUrl: mixpanel.apiHost ?? MIXPANEL_HOSTS[mixpanel.region ?? 'us'],
    queryBaseUrl: mixpanel.apiHost ?? MIXPANEL_QUERY_HOSTS[mixpanel.region ?? 'us'],
    groupProfiles: { ...mixpanel.groupProfiles },
    // A service account is username and secret; a project's API secret alone is the user, with no password.
    authorization: mixpanel.username !== undefined ? basic(mixpanel.username, secret) : basic(secret, ''),
    credentialSettings: `${mixpanel.username !== undefined ? 'sources.mixpanel.username and ' : ''}${secretName} in ${file}, for project ${mixpanel.projectId}`,
  };
}

export function resolveAmplitude(config: MigrateConfig, file: string, env: Env = process.env): SourceApiTarget {
  const amplitude = config.sources?.amplitude;
  if (amplitude === undefined) throw missing('amplitude', file);
  const secretKey = readSecret('sources.amplitude.secretKey', amplitude.secretKey, amplitude.secretKeyEnv, env);
  registerSecret(secretKey);
  registerSecret(amplitude.apiKey);
  // The project is named by a digest of its API key: the key itself is never written anywhere.
  const project = createHash('sha256').update(amplitude.apiKey).digest('hex').slice(0, 12);
  return {
    source: `amplitude-api:${project}`,
    baseUrl: amplitude.apiHost ?? AMPLITUDE_HOSTS[amplitude.region ?? 'us'],
    authorization: basic(amplitude.apiKey, secretKey),
    credentialSettings: `sources.amplitude.apiKey and ${secretSetting('sources.amplitude.secretKey', amplitude.secretKeyEnv)} in ${file}`,
  };
}

/**
 * Another PostHog project of the config as a source (`--from posthog-api --project old`): its
 * API host, project id and personal key (`query:read`), as the management commands take them.
 * The ledger names it by project and host, so two instances' project 1 never share ranges.
 */
export function resolvePostHogSource(config: MigrateConfig, file: string, name: string, env: Env = process.env): SourceApiTarget & { projectId: string } {
  const project = resolveManagement(config, name, env);
  const host = new URL(project.apiHost).host;
  return {
    source: `posthog-api:${project.projectId}@${host}`,
    projectId: project.projectId,
    baseUrl: project.apiHost.replace(/\/+$/, ''),
    authorization: `Bearer ${project.personalApiKey}`,
    credentialSettings: `projects.${name}.personalApiKey in ${file} (a personal API key with query:read on project ${project.projectId})`,
  };
}
