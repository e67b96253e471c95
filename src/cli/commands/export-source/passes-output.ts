/**
 * The lines a staging command prints after its files: the notes on staged rows (times taken from
 * other fields, groups with several keys, session ids PostHog will not keep), then what the
 * passes after staging did: identity links with their guards, group updates, sessions.
 */
import type { NoteCounts } from '../../../events/source-notes.js';
import type { DeviceExample } from '../../../passes/identity-links.js';
import type { PassesResult } from '../../../passes/run-passes.js';
import { count, plural } from '../../../util/format.js';

const eg = (examples: readonly string[]): string => (examples.length === 0 ? '' : ` (e.g. ${examples.join('; ')})`);

/** One line per note, with its examples. */
export function noteLines(notes: NoteCounts): string[] {
  const lines: string[] = [];
  const n = (code: keyof NoteCounts): number => notes[code]?.count ?? 0;
  const examples = (code: keyof NoteCounts): string[] => notes[code]?.examples ?? [];
  if (n('time_from_client_event_time') > 0) lines.push(`${plural(n('time_from_client_event_time'), 'event')} had no event_time: their client_event_time was used (--strict-time rejects them instead)`);
  if (n('time_from_server_received_time') > 0) lines.push(`${plural(n('time_from_server_received_time'), 'event')} had neither event_time nor client_event_time: their server_received_time was used`);
  if (n('several_group_keys') > 0) {
    lines.push(`${plural(n('several_group_keys'), 'event')} listed several keys for one group type${eg(examples('several_group_keys'))}: PostHog keeps one per type, the first was kept`);
  }
  if (n('session_id_not_uuidv7') > 0) {
    const kept = n('source_session_id_kept');
    lines.push(
      `${plural(n('session_id_not_uuidv7'), 'event')} had a $session_id that is not a UUIDv7${eg(examples('session_id_not_uuidv7'))}: ` +
        (kept > 0
          ? `kept as $source_session_id, and sessions computed (--sessionize)`
          : "PostHog's sessions table keeps only UUIDv7 ids, so these make no sessions. Stage with --sessionize 30 to compute sessions (the source's value is kept as $source_session_id)"),
    );
  }
  return lines;
}

function deviceExamples(devices: readonly DeviceExample[], what: (d: DeviceExample) => string): string {
  return eg(devices.map((d) => `${d.device}: ${what(d)}`));
}

function identityLines(passes: PassesResult): string[] {
  const { identity } = passes;
  const t = identity.totals;
  if (t.devices === 0 && identity.withdrawn === 0) return [];
  const changes = [identity.withdrawn > 0 ? `${count(identity.withdrawn)} withdrawn` : '', identity.moved > 0 ? `${count(identity.moved)} moved earlier` : ''].filter(Boolean);
  const lines = [
    `Identity links ($identify, a device's anonymous events to its user): ${count(identity.staged)} staged by this run, ${count(t.links)} in all${changes.length > 0 ? `; ${changes.join(', ')}` : ''}`,
  ];
  const users = (d: DeviceExample): string => `${plural(d.users, 'user')}`;
  if (t.shared > 0)
    lines.push(
      `  ${plural(t.shared, 'device')} seen with several users, each linked to its first user only${deviceExamples(identity.examples.shared, (d) => `${users(d)}, linked to ${d.firstUser ?? ''}`)}`,
    );
  if (t.kiosks > 0)
    lines.push(
      `  ${plural(t.kiosks, 'device')} seen with more than ${passes.maxUsersPerDevice} users not linked (a kiosk or test device? --max-users-per-device)${deviceExamples(identity.examples.kiosk, users)}`,
    );
  if (t.placeholders > 0) lines.push(`  ${plural(t.placeholders, 'placeholder device id')} never linked${eg(identity.examples.placeholder.map((d) => JSON.stringify(d.device)))}`);
  if (t.illegalUsers > 0) lines.push(`  ${plural(t.illegalUsers, 'device')} not linked: the user id is one PostHog refuses to merge on`);
  if (t.keptDelivered > 0) {
    lines.push(
      `  ${plural(t.keptDelivered, 'link')} delivered earlier no longer match the files (kept: PostHog cannot undo a merge)${deviceExamples(identity.examples.kept, (d) => `linked to ${d.linkUser ?? ''}, now ${d.firstUser === null ? 'no user' : `first seen with ${d.firstUser}`}`)}`,
    );
  }
  return lines;
}

function groupLines(passes: PassesResult): string[] {
  const { groups } = passes;
  const lines: string[] = [];
  if (groups.totals.updates > 0 || groups.withdrawn > 0) {
    lines.push(
      `Group updates ($groupidentify from group properties, one per change): ${count(groups.staged)} staged by this run, ${count(groups.totals.updates)} in all for ${plural(groups.totals.groups, 'group')}` +
        (groups.withdrawn > 0 ? `; ${count(groups.withdrawn)} withdrawn` : ''),
    );
  }
  if (groups.typesLeftOut.length > 0) lines.push(`  group types beyond PostHog's five: ${groups.typesLeftOut.join(', ')} (their properties are not staged)`);
  if (groups.totals.keptDelivered > 0) lines.push(`  ${plural(groups.totals.keptDelivered, 'group update')} delivered earlier no longer match the files (kept)`);
  return lines;
}

/** What the passes did, or nothing when there was nothing for them. */
export function passesLines(passes: PassesResult | undefined): string[] {
  if (passes === undefined) return [];
  const lines = [...identityLines(passes), ...groupLines(passes)];
  const s = passes.sessions;
  if (s !== undefined)
    lines.push(
      `Sessions (--sessionize ${s.minutes}): ${plural(s.updated, 'event')} given a session id by this run; ${plural(s.totals.events, 'event')} in ${plural(s.totals.sessions, 'session')} in all`,
    );
  const heap = passes.heapSessions;
  if (heap.totals.events > 0)
    lines.push(
      `Heap sessions started by their first event: ${plural(heap.updated, 'event')} given a session id by this run; ${plural(heap.totals.events, 'event')} in ${plural(heap.totals.sessions, 'session')} in all`,
    );
  return lines;
}
