/**
 * `migrate doctor --project <name>` for a project that is a source (`export-source --from
 * posthog-api`): the personal key reads the project, it may query (`query:read`), and how many
 * events (in --start/--end when given), persons and groups the project holds. Asks, writes nothing.
 */
import { configPath, loadConfig } from '../config/load-config.js';
import { resolvePostHogSource } from '../config/resolve-source.js';
import { createHttpClient, type HttpClient } from '../http/http-client.js';
import type { Reporter } from '../reporter.js';
import { hourWindow } from '../source-apis/api-ranges.js';
import { countEventsQuery } from '../source-apis/posthog-queries.js';
import { POSTHOG_QUERY } from '../source-apis/posthog-query-api.js';
import { askCount, askJson, type QueryCallOptions } from '../source-apis/query-range.js';
import type { DownloadResult } from '../source-apis/range-download.js';
import { RequestWindow } from '../source-apis/request-window.js';
import { systemClock, type Clock } from '../util/clock.js';
import { count } from '../util/format.js';
import { doctorReport, ok, problem, type CheckResult, type DoctorReport } from './check-result.js';
import { DOCTOR_RETRY_POLICY, DOCTOR_TIMEOUT_MS } from './doctor-timing.js';

export interface SourceDoctorInput {
  project: string;
  config?: string;
  /** The window export-source would read (hours or days); the whole project when absent. */
  start?: string;
  end?: string;
  nowMs: number;
  env?: Readonly<Record<string, string | undefined>>;
}

function why(result: DownloadResult): { status?: number; message: string } {
  if (result.type === 'abandoned') return { message: 'interrupted' };
  if (result.type === 'gave-up') return { status: result.status, message: result.reason };
  const v = result.verdict;
  return { status: result.status, message: v.type === 'rejected' || v.type === 'fatal' ? v.message : v.type === 'too-large' ? v.reason : `HTTP ${result.status ?? '?'}` };
}

async function projectCheck(call: QueryCallOptions, url: string, id: string, credentials: string): Promise<CheckResult> {
  const asked = await askJson(call, 'GET', url);
  if (asked.ok) {
    const project = asked.json as { name?: unknown; timezone?: unknown };
    return ok('source-project', `the personal key reads project ${id} (${String(project.name ?? '?')}, time zone ${String(project.timezone ?? 'UTC')})`);
  }
  const { status, message } = why(asked.result);
  if (status === 404) return problem('source-project', `no project ${id} at this host (HTTP 404)`, 'Check projectId and apiHost of the project in the config.');
  return problem('source-project', `the project could not be read (${status === undefined ? '' : `HTTP ${status}: `}${message})`, `Check ${credentials}.`);
}

export async function runSourceDoctor(input: SourceDoctorInput, reporter: Reporter, signal: AbortSignal, clock: Clock = systemClock, http?: HttpClient): Promise<DoctorReport> {
  const target = resolvePostHogSource(loadConfig(input.config), configPath(input.config), input.project, input.env);
  const span = input.start === undefined && input.end === undefined ? undefined : hourWindow(input.start, input.end, input.nowMs);
  const client = http ?? createHttpClient({ connections: 1 });
  const call: QueryCallOptions = {
    http: client,
    request: POSTHOG_QUERY.request(target, { first: 0, last: 0 }),
    timeoutMs: DOCTOR_TIMEOUT_MS,
    policy: DOCTOR_RETRY_POLICY,
    clock,
    signal,
    window: new RequestWindow([], clock),
    onWait: () => undefined,
    onRequest: () => undefined,
    onRetry: (reason) => reporter.progress(`${input.project}: ${reason}; retrying`),
    splitsOn: () => false,
  };
  try {
    reporter.progress(`${input.project}: checking project ${target.projectId} at ${target.baseUrl} as a source`);
    const checks = [await projectCheck(call, `${target.baseUrl}/api/projects/${target.projectId}/`, target.projectId, target.credentialSettings)];
    const state = { pageRows: 0 };
    const events = await askCount(call, span === undefined ? 'SELECT count() FROM events' : countEventsQuery(span), state);
    if (!events.ok) {
      const { status, message } = why(events.result);
      const scope = status === 403 ? 'query:read' : undefined;
      checks.push(
        problem(
          'source-query',
          `the key cannot query the project (${status === undefined ? '' : `HTTP ${status}: `}${message})`,
          scope === undefined ? `Check ${target.credentialSettings}.` : 'Give the personal API key the Query Read scope (query:read), or create one that has it.',
        ),
      );
      return doctorReport(input.project, target.baseUrl, checks);
    }
    checks.push(ok('source-query', 'the key may query the project (query:read)'));
    // Counts for the report only: on a large project PostHog may find them too slow, shown as '?'.
    const persons = await askCount(call, 'SELECT count() FROM persons', state);
    const ids = await askCount(call, 'SELECT count() FROM person_distinct_ids', state);
    const groups = await askCount(call, 'SELECT count() FROM groups', state);
    const n = (r: typeof persons) => (r.ok ? r.count : undefined);
    const where = span === undefined ? 'in all' : `from ${POSTHOG_QUERY.bounds(span).start} to ${POSTHOG_QUERY.bounds(span).end}`;
    const details = { events: events.count, persons: n(persons), distinctIds: n(ids), groups: n(groups) };
    const text = (v: number | undefined) => (v === undefined ? '?' : count(v));
    checks.push(ok('source-data', `${text(events.count)} events ${where}; ${text(details.persons)} persons (${text(details.distinctIds)} distinct ids), ${text(details.groups)} groups`, details));
    return doctorReport(input.project, target.baseUrl, checks);
  } finally {
    if (http === undefined) await client.close();
  }
}
