/**
 * Check 6: the staged data against the project. Events already in the project on the staged
 * days mean a re-import, or a live SDK sending into it: worth knowing before adding more, never
 * a reason to refuse. Also says how many events a day the migration adds. Pure.
 */
import type { DayCount } from '../../staging/staged-facts.js';
import { count, plural } from '../../util/format.js';
import { ok, warning, type CheckResult } from '../check-result.js';
import type { ProjectEventsFacts, StagedFacts } from '../doctor-facts.js';

const DAYS_NAMED = 3;

function busiest(days: readonly DayCount[]): DayCount | undefined {
  return days.reduce<DayCount | undefined>((top, d) => (top === undefined || d.count > top.count ? d : top), undefined);
}

/** "adds 3,000 events over 42 days (2025-09-01 .. 2025-10-12; at most 120 a day, on 2025-09-03)" */
function adds(perDay: readonly DayCount[], events: number): string {
  const top = busiest(perDay)!;
  const range = `${perDay[0]!.day} .. ${perDay.at(-1)!.day}`;
  return `the migration adds ${plural(events, 'event')} over ${plural(perDay.length, 'day')} (${range}; at most ${count(top.count)} a day, on ${top.day})`;
}

function named(days: readonly DayCount[]): string {
  const shown = days.slice(0, DAYS_NAMED).map((d) => `${d.day}: ${count(d.count)}`);
  return days.length > DAYS_NAMED ? `${shown.join(', ')}, ...` : shown.join(', ');
}

export function existingDataCheck(staged: StagedFacts | undefined, projectEvents: ProjectEventsFacts): CheckResult {
  if (staged === undefined || staged.summary.events === 0 || staged.perDay.length === 0) {
    return ok('existing-data', 'no events staged yet: run `migrate doctor` again after `migrate export-source` to compare them with the project');
  }
  const added = adds(staged.perDay, staged.summary.events);
  const details: Record<string, unknown> = { stagedPerDay: staged.perDay };
  if (projectEvents.state === 'not-checked') return ok('existing-data', `${added}; whether the project already holds events on those days was not checked: ${projectEvents.reason}`, details);
  if (projectEvents.state === 'failed') {
    return warning(
      'existing-data',
      `${added}; the project's events on those days could not be counted: ${projectEvents.message}`,
      'Run `migrate doctor` again; it needs a personal key with query:read.',
      details,
    );
  }
  const held = projectEvents.perDay.filter((d) => d.count > 0);
  details.projectPerDay = held;
  const total = held.reduce((sum, d) => sum + d.count, 0);
  if (total === 0) return ok('existing-data', `the project holds no events on the staged days; ${added}`, details);
  const holds = `the project already holds ${plural(total, 'event')} on ${held.length} of the ${plural(staged.perDay.length, 'staged day')} (${named(held)})`;
  if (staged.summary.settledForProject > 0) {
    return ok('existing-data', `${holds}; this staging file already delivered ${plural(staged.summary.settledForProject, 'event')} to it; ${added}`, details);
  }
  return warning(
    'existing-data',
    `${holds}: a re-import, or a live SDK sending into this project; ${added}`,
    'Make sure this is the project you mean. An earlier import of the same staging file is harmless (the stable uuids let PostHog collapse the copies); other data stays next to the migrated events.',
    details,
  );
}
