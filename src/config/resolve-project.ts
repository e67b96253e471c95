/**
 * From a validated config to what one command needs: the ingestion target (host and project
 * key) or the management target (API host, project id, personal key). Keys are looked up in
 * the environment here and registered for redaction at once.
 */
import { UsageError } from '../errors.js';
import { registerSecret } from '../util/redact.js';
import type { MigrateConfig, ProjectConfig } from './config-schema.js';
import { REGION_HOSTS, toApiUrl, toIngestionUrl } from './hosts.js';

export interface IngestionTarget {
  name: string;
  role: ProjectConfig['role'];
  /** Base URL without trailing slash; requests go to `${host}/batch/`. */
  host: string;
  apiKey: string;
}

export interface ManagementTarget {
  name: string;
  apiHost: string;
  projectId: string;
  personalApiKey: string;
  /** The ingestion host, so the personal key is never sent there. */
  ingestionHost: string;
  /** The config file as given (--config), named in the commands messages suggest. */
  configFile?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

export function findProject(config: MigrateConfig, name: string): ProjectConfig {
  const project = config.projects[name];
  if (project === undefined) {
    const known = Object.keys(config.projects);
    throw new UsageError(`no project named "${name}" in the config`, [known.length > 0 ? `Projects in the config: ${known.join(', ')}.` : 'The config has no projects yet.']);
  }
  return project;
}

function readKey(name: string, inline: string | undefined, envVar: string | undefined, env: Env, what: string, field: string): string {
  if (inline !== undefined) return inline;
  if (envVar === undefined) {
    throw new UsageError(`projects.${name}.${field}: no ${what}; set "${field}" or "${field}Env" in the config`);
  }
  const value = env[envVar];
  if (value === undefined || value === '') {
    throw new UsageError(`projects.${name}.${field}Env: environment variable ${envVar} is not set`);
  }
  return value;
}

/** The ingestion host of a project: its host (an app host mapped to its ingestion host), or its region's. */
export function ingestionHost(project: ProjectConfig): string {
  return project.host !== undefined ? toIngestionUrl(project.host) : REGION_HOSTS[project.region!].ingestion;
}

export function resolveIngestion(config: MigrateConfig, name: string, env: Env = process.env): IngestionTarget {
  const project = findProject(config, name);
  const apiKey = readKey(name, project.apiKey, project.apiKeyEnv, env, 'project API key', 'apiKey');
  registerSecret(apiKey);
  if (apiKey.startsWith('phx_')) {
    throw new UsageError(`projects.${name}: the project API key is a personal API key (phx_...); ingestion needs the project key (phc_...)`);
  }
  return { name, role: project.role, host: ingestionHost(project), apiKey };
}

export function resolveManagement(config: MigrateConfig, name: string, env: Env = process.env): ManagementTarget {
  const project = findProject(config, name);
  const personalApiKey = readKey(name, project.personalApiKey, project.personalApiKeyEnv, env, 'personal API key', 'personalApiKey');
  registerSecret(personalApiKey);
  if (personalApiKey.startsWith('phc_')) {
    throw new UsageError(`projects.${name}: the personal API key is a project key (phc_...); the management API needs a personal key (phx_...)`);
  }
  if (project.projectId === undefined) throw new UsageError(`projects.${name}.projectId: required for management commands`);
  const ingestion = ingestionHost(project);
  const apiHost = project.apiHost ?? (project.region !== undefined ? REGION_HOSTS[project.region].api : toApiUrl(ingestion));
  return { name, apiHost, projectId: project.projectId, personalApiKey, ingestionHost: ingestion };
}
