/**
 * PostHog's ingestion rules import checks over the whole staging file before it sends
 * anything: more than 5 group types (a project's limit: the others' groups would be lost), and
 * events of the last 48 hours (PostHog asks for historical events at least 48 hours old) unless
 * --include-recent. Refusals (exit 6) naming what and how to go on.
 */
import { RefusedError } from '../errors.js';
import { RECENT_WINDOW_MS } from '../events/staged-event.js';
import { geoReads, groupTypeUses, pendingRecentEvents, type GroupTypeUse } from '../staging/rule-report.js';
import { MAX_GROUP_TYPES } from '../posthog/limits.js';
import type { DeliverySettings } from '../delivery/delivery-options.js';
import type { Reporter } from '../reporter.js';
import { findProjectRecord, totalStaged } from '../staging/delivery-store.js';
import { stageLatestResends } from '../staging/latest-resends.js';
import { stageReassertions } from '../staging/reassertions.js';
import type { StagingStore } from '../staging/staging-store.js';
import type { Clock } from '../util/clock.js';
import { count, plural } from '../util/format.js';

/** The sentence refusing more than 5 group types, or undefined. Pure. */
export function groupTypesProblem(uses: readonly GroupTypeUse[]): string | undefined {
  if (uses.length <= MAX_GROUP_TYPES) return undefined;
  const named = uses.map((u) => `${u.type} (${plural(u.count, 'row')}, first at ${u.path}:${u.line})`).join(', ');
  return `the staging file uses ${uses.length} group types, and PostHog takes at most ${MAX_GROUP_TYPES} per project (the others' groups would be lost): ${named}`;
}

export function refuseTooManyGroupTypes(store: StagingStore): void {
  const problem = groupTypesProblem(groupTypeUses(store));
  if (problem === undefined) return;
  throw new RefusedError(problem, [
    'Keep at most 5 group types: stage the sources again into a new staging file with fewer --group options (or a map file dropping the extra group properties), and only the groups files of the types you keep.',
    'A project that already has group types has fewer left: see `migrate group-types`.',
  ]);
}

/** Refuses to send events of the last 48 hours unless `includeRecent`. */
export function refuseRecentEvents(store: StagingStore, projectId: number | undefined, nowMs: number, includeRecent: boolean): void {
  if (includeRecent) return;
  const recent = pendingRecentEvents(store, projectId, nowMs - RECENT_WINDOW_MS);
  if (recent.count === 0) return;
  throw new RefusedError(
    `${plural(recent.count, 'staged event')} ${recent.count === 1 ? 'is' : 'are'} from the last 48 hours (the newest at ${new Date(recent.newestMs!).toISOString()}): PostHog asks for historical events at least 48 hours old`,
    [`Send them anyway with --include-recent (recorded with the run), or import once they are 48 hours old.`],
  );
}

/** Both refusals, for a run (or dry run) into `project` with these settings. */
export function checkStagedRules(store: StagingStore, project: string, settings: DeliverySettings, clock: Clock): void {
  refuseTooManyGroupTypes(store);
  refuseRecentEvents(store, findProjectRecord(store, project)?.id, clock.now(), settings.includeRecent);
}

/**
 * Before a run sends: the latest update of each person or group that has an older one still to
 * send behind a delivered newer one is staged again (see latest-resends.ts); in the default order
 * (people first), the re-assertions the file needs now are staged (see reassertions.ts); each said.
 */
export function prepareSendOrder(store: StagingStore, settings: DeliverySettings, reporter: Reporter): void {
  const latest = stageLatestResends(store);
  if (latest.added > 0) {
    reporter.notice(
      `${plural(latest.added, 'person or group', 'persons or groups')} got an update older than one a project already received: their latest update is staged again to be sent after it (PostHog keeps the last one it processes).`,
    );
  }
  if (settings.peopleLast) return;
  const made = stageReassertions(store);
  if (made.added > 0) {
    reporter.notice(`${plural(made.added, 'person')} whose events carry their own $set will get the users file's values again after the events (${plural(made.total, 're-assertion')} staged).`);
  }
}

/**
 * Rows staged by a migrate that set no `$geoip_disable` would be located by PostHog at the
 * machine that sends them, and their persons with them: said before every run that still has
 * rows to send (import, resume, a re-send), not only by the project's first preflight.
 */
export function warnUnlocatedRows(store: StagingStore, project: string, reporter: Reporter): void {
  const older = geoReads(store).older;
  if (older.length === 0) return;
  const record = findProjectRecord(store, project);
  const pending = totalStaged(store) - (record?.delivered ?? 0) - (record?.deadLetters ?? 0);
  if (pending <= 0) return;
  const rows = older.reduce((n, r) => n + r.staged, 0);
  reporter.warn(
    `${project}: ${plural(older.length, 'read')} staged by an older migrate (${older.map((r) => r.path).join(', ')}) set no $geoip_disable: ` +
      `those of their ${count(rows)} rows still to be sent will be located by PostHog, with their persons, at this machine\n` +
      '  Stage those files again into a new staging file (--staging new.db) before sending them: rows without their own $ip then carry $geoip_disable.',
  );
}
