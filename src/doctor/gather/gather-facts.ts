/**
 * Gathers the facts the checks judge: the ingestion host's answers, what the personal key can
 * read, the other projects of the config, this machine and the staging file. Requests go
 * through the one HTTP client and retry loop; API calls through the management client.
 */
import type { MigrateConfig } from '../../config/config-schema.js';
import { ingestionHost, resolveIngestion, resolveManagement, type IngestionTarget, type ManagementTarget } from '../../config/resolve-project.js';
import { MigrateError } from '../../errors.js';
import { createHttpClient, type HttpClient } from '../../http/http-client.js';
import type { RetryPolicy } from '../../http/retry-policy.js';
import { createManagementClient } from '../../management/management-client.js';
import type { StagingStore } from '../../staging/staging-store.js';
import type { Clock } from '../../util/clock.js';
import { hostCheck } from '../checks/host-check.js';
import type { ConfiguredProject, DoctorFacts, KeyFacts, PersonalKeyFacts, Probe, SeparationFacts, StagedFacts } from '../doctor-facts.js';
import { importNeed } from '../../machine/disk-estimate.js';
import { gatherApiFacts, type ApiFacts } from './api-facts.js';
import { probeEmptyBatch, probeFlags, type ProbeContext } from './ingestion-probes.js';
import { diskFacts } from '../../machine/disk-facts.js';
import { stagedFacts } from './local-facts.js';

export interface GatherInput {
  config: MigrateConfig;
  target: IngestionTarget;
  /** The staging file, opened by the caller; undefined when there is none yet. */
  store?: StagingStore;
  stagingPath: string;
  /** Retries of the ingestion requests. */
  policy: RetryPolicy;
  timeoutMs: number;
  clock: Clock;
  signal: AbortSignal;
}

function separationFacts(config: MigrateConfig, target: IngestionTarget): SeparationFacts {
  const others: ConfiguredProject[] = Object.entries(config.projects)
    .filter(([name]) => name !== target.name)
    .map(([name, project]) => {
      let apiKey: ConfiguredProject['apiKey'];
      try {
        apiKey = resolveIngestion(config, name).apiKey;
      } catch (error) {
        if (!(error instanceof MigrateError)) throw error;
        apiKey = { unavailable: error.message };
      }
      return { name, role: project.role, host: ingestionHost(project), projectId: project.projectId, apiKey };
    });
  const own = config.projects[target.name]!;
  return { target: { name: target.name, role: target.role, host: target.host, projectId: own.projectId, apiKey: target.apiKey }, others };
}

/** The management target when a personal key is configured and usable here. */
function managementTarget(config: MigrateConfig, name: string): ManagementTarget | PersonalKeyFacts {
  const project = config.projects[name]!;
  if (project.personalApiKey === undefined && project.personalApiKeyEnv === undefined) return { state: 'none' };
  try {
    return resolveManagement(config, name);
  } catch (error) {
    if (!(error instanceof MigrateError)) throw error;
    return { state: 'unusable', reason: error.message };
  }
}

const NO_API: Omit<ApiFacts, 'personalKey'> = {
  key: { type: 'ask-flags', why: 'no personal API key is configured' },
  projectEvents: { state: 'not-checked', reason: 'no personal API key is configured' },
  billing: { state: 'not-checked', reason: 'no personal API key is configured' },
};

async function apiFacts(input: GatherInput, http: HttpClient, staged: StagedFacts | undefined): Promise<ApiFacts> {
  const management = managementTarget(input.config, input.target.name);
  if ('state' in management) {
    const reason = management.state === 'none' ? 'no personal API key is configured' : 'the personal API key cannot be used';
    return { ...NO_API, key: { type: 'ask-flags', why: reason }, personalKey: management };
  }
  const client = createManagementClient({ target: management, http, clock: input.clock });
  return gatherApiFacts(client, management.projectId, input.target.apiKey, staged?.perDay ?? []);
}

async function keyFacts(api: ApiFacts, ctx: ProbeContext, hostUsable: boolean): Promise<KeyFacts> {
  const flags: Probe = hostUsable ? (await probeFlags(ctx)).probe : { type: 'not-sent', reason: 'the host is not a PostHog ingestion endpoint' };
  // Asked even when the API knows the key: the API may be another PostHog than the ingestion host.
  if (api.key.type === 'known') return api.key.facts.via === 'api' ? { ...api.key.facts, flags } : api.key.facts;
  const failure = api.key.apiFailure;
  return failure !== undefined ? { via: 'api-failed', ...failure, flags } : { via: 'flags', probe: flags, why: api.key.why };
}

export async function gatherFacts(input: GatherInput): Promise<DoctorFacts> {
  const http = createHttpClient({ connections: 2 });
  try {
    const ctx: ProbeContext = { http, host: input.target.host, apiKey: input.target.apiKey, policy: input.policy, clock: input.clock, signal: input.signal, timeoutMs: input.timeoutMs };
    const emptyBatch = await probeEmptyBatch(ctx);
    const configured = input.config.projects[input.target.name]!.host;
    const host = { host: input.target.host, ...(configured !== undefined && configured !== input.target.host ? { configuredHost: configured } : {}), emptyBatch: emptyBatch.probe };
    const staged = input.store !== undefined ? stagedFacts(input.store, input.target.name) : undefined;
    const api = await apiFacts(input, http, staged);
    const pending = staged === undefined ? 0 : staged.summary.total - staged.summary.settledForProject;
    return {
      project: input.target.name,
      host,
      key: await keyFacts(api, ctx, hostCheck(host).verdict !== 'problem'),
      separation: separationFacts(input.config, input.target),
      personalKey: api.personalKey,
      ...(staged !== undefined ? { staged } : {}),
      projectEvents: api.projectEvents,
      billing: api.billing,
      machine: {
        disk: await diskFacts(input.stagingPath),
        neededBytes: importNeed(pending),
        localNowMs: emptyBatch.receivedMs,
        ...(emptyBatch.date !== undefined ? { serverDate: emptyBatch.date } : {}),
        nodeVersion: process.versions.node,
      },
    };
  } finally {
    await http.close();
  }
}
