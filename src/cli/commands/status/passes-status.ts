/** The status lines of the passes after staging: identity links and their guards, group updates, sessions. */
import type { PassesReport } from '../../../staging/pass-state.js';
import { count, plural } from '../../../util/format.js';

type Totals = Record<string, number>;

function identityLine(t: Totals | undefined, maxUsers: number | null): string | undefined {
  if (t === undefined || !(t.devices! > 0)) return undefined;
  const skipped = [
    t.kiosks! > 0 ? `${plural(t.kiosks!, 'device')} seen with more than ${maxUsers ?? 5} users` : '',
    t.placeholders! > 0 ? `${plural(t.placeholders!, 'placeholder device id')}` : '',
    t.illegalUsers! > 0 ? `${plural(t.illegalUsers!, 'device')} whose user id PostHog refuses to merge on` : '',
  ].filter(Boolean);
  return (
    `Identity links: ${count(t.links!)} ($identify, device to user); ${plural(t.shared!, 'device')} shared by several users (linked to the first)` +
    (skipped.length > 0 ? `; not linked: ${skipped.join(', ')}` : '') +
    (t.keptDelivered! > 0 ? `; ${count(t.keptDelivered!)} delivered earlier no longer match the files (kept)` : '')
  );
}

export function passesStatusLines(report: PassesReport): string[] {
  const lines: string[] = [];
  const summary = (report.summary ?? {}) as { identity?: Totals; groups?: Totals & { typesLeftOut?: string[] }; sessions?: (Totals & { minutes: number }) | null };
  const identity = identityLine(summary.identity, report.maxUsersPerDevice);
  if (identity !== undefined) lines.push(identity);
  const groups = summary.groups;
  if (groups !== undefined && groups.updates! > 0) lines.push(`Group updates from group properties: ${count(groups.updates!)} for ${plural(groups.groups!, 'group')}`);
  if (groups?.typesLeftOut !== undefined && groups.typesLeftOut.length > 0) lines.push(`  group types beyond PostHog's five, not staged: ${groups.typesLeftOut.join(', ')}`);
  const sessions = summary.sessions;
  if (sessions) lines.push(`Sessions (--sessionize ${sessions.minutes}): ${plural(sessions.events!, 'event')} in ${plural(sessions.sessions!, 'session')}`);
  if (report.pendingSince !== null)
    lines.push(`Unfinished: the staging run begun at ${report.pendingSince} did not work out identity links, group updates and sessions; run it again before importing.`);
  return lines;
}
