/**
 * What the personal key can learn about the project: its scopes (or, on an older PostHog, the
 * read scopes tried one by one), the project's own key, its events on the staged days, and the
 * organization's billing. The project key check falls back to the flags endpoint when the API
 * cannot answer it; the caller asks flags then.
 */
import { z } from 'zod';
import type { ManagementClient } from '../../management/management-client.js';
import type { DayCount } from '../../staging/staged-facts.js';
import type { BillingFacts, KeyFacts, PersonalKeyFacts, ProjectEventsFacts } from '../doctor-facts.js';
import { grantsScope } from '../scopes.js';
import { apiRead, countEventsPerDay, listProjects, readBilling, readCurrentKey, readProject, scopeProbes, type ApiRead } from './api-reads.js';

/** The key facts, or what the flags endpoint must settle (and why it is asked). */
export type ApiKeyFacts = { type: 'known'; facts: KeyFacts } | { type: 'ask-flags'; why: string; apiFailure?: { projectId: string; status: number; message: string } };

export interface ApiFacts {
  key: ApiKeyFacts;
  personalKey: PersonalKeyFacts;
  projectEvents: ProjectEventsFacts;
  billing: BillingFacts;
}

/** Scopes learned from reads: a 2xx grants, a 403 naming the scope denies, anything else says nothing. */
class ScopeLedger {
  readonly granted = new Set<string>();
  readonly missing = new Set<string>();
  note(scope: string, read: ApiRead<unknown>): void {
    if (read.type === 'ok') this.granted.add(scope);
    else if (read.missingScope === scope) this.missing.add(scope);
  }
}

function refused(message: string): ApiFacts {
  const reason = 'the personal API key was refused';
  return {
    key: { type: 'ask-flags', why: reason },
    personalKey: { state: 'refused', message },
    projectEvents: { state: 'not-checked', reason },
    billing: { state: 'not-checked', reason },
  };
}

async function keyFacts(client: ManagementClient, projectId: string, configuredKey: string, read: ApiRead<{ id: number; name: string; apiToken: string }>): Promise<ApiKeyFacts> {
  if (read.type === 'ok') {
    const others = read.value.apiToken === configuredKey ? undefined : await listProjects(client);
    return { type: 'known', facts: { via: 'api', configuredKey, projectId, project: read.value, ...(others !== undefined ? { others } : {}) } };
  }
  if (read.missingScope === 'project:read') return { type: 'ask-flags', why: 'the personal key lacks project:read' };
  return { type: 'ask-flags', why: 'the API did not answer the project', apiFailure: { projectId, status: read.status, message: read.message } };
}

async function projectEvents(client: ManagementClient, projectId: string, staged: readonly DayCount[], mayQuery: boolean, ledger: ScopeLedger): Promise<ProjectEventsFacts> {
  if (staged.length === 0) return { state: 'not-checked', reason: 'no events are staged' };
  if (!mayQuery) return { state: 'not-checked', reason: 'the personal key lacks query:read' };
  const read = await countEventsPerDay(client, projectId, staged);
  ledger.note('query:read', read);
  if (read.type === 'ok') return { state: 'counted', perDay: read.value };
  if (read.missingScope === 'query:read') return { state: 'not-checked', reason: 'the personal key lacks query:read' };
  return { state: 'failed', message: `${read.status}: ${read.message}` };
}

async function billing(client: ManagementClient, mayRead: boolean, ledger: ScopeLedger): Promise<BillingFacts> {
  if (!mayRead) return { state: 'not-checked', reason: 'the personal key lacks billing:read' };
  const read = await readBilling(client);
  ledger.note('billing:read', read);
  if (read.type === 'ok') return { state: 'read', ...read.value };
  if (read.missingScope === 'billing:read') return { state: 'not-checked', reason: 'the personal key lacks billing:read' };
  return { state: 'unreadable', status: read.status, message: read.message };
}

export async function gatherApiFacts(client: ManagementClient, projectId: string, configuredKey: string, staged: readonly DayCount[]): Promise<ApiFacts> {
  const current = await readCurrentKey(client);
  if (current.type === 'error' && current.status === 401) return refused(current.message);
  const project = await readProject(client, projectId);
  if (project.type === 'error' && project.status === 401) return refused(project.message);
  const ledger = new ScopeLedger();
  ledger.note('project:read', project);
  const scopes = current.type === 'ok' ? current.value.scopes : undefined;
  const may = (scope: string): boolean => scopes === undefined || grantsScope(scopes, scope);
  const facts = {
    key: await keyFacts(client, projectId, configuredKey, project),
    projectEvents: await projectEvents(client, projectId, staged, may('query:read'), ledger),
    billing: await billing(client, may('billing:read'), ledger),
  };
  if (current.type === 'ok') return { ...facts, personalKey: { state: 'listed', projectId, scopes: current.value.scopes, scopedTeams: current.value.scopedTeams } };
  for (const probe of scopeProbes(projectId)) ledger.note(probe.scope, await apiRead(client, probe.call, z.unknown()));
  return { ...facts, personalKey: { state: 'probed', projectId, granted: [...ledger.granted], missing: [...ledger.missing] } };
}
