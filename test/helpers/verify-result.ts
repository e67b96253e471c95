/** A verify result for report tests: a three-year migration with a few short days and awkward text from the data. */
import type { VerifyResult } from '../../src/verify/verify-project.js';
import { dayFromNumber, dayNumber } from '../../src/verify/utc-day.js';
import { orderRows, summarize, type VerifyRow } from '../../src/verify/verify-table.js';

export const SHORT_DAYS = new Map([
  ['2023-03-14', 120],
  ['2024-07-01', 35],
  ['2025-11-30', 4],
]);

function days(first: string, count: number): VerifyRow[] {
  const start = dayNumber(first);
  const rows: VerifyRow[] = [];
  for (let i = 0; i < count; i++) {
    const day = dayFromNumber(start + i);
    // A weekly rhythm over slow growth, as real traffic has.
    const staged = Math.round((800 + i * 0.9) * (i % 7 === 5 || i % 7 === 6 ? 0.6 : 1));
    const deadLetters = i % 97 === 0 ? 2 : 0;
    const delivered = staged - deadLetters;
    const missing = SHORT_DAYS.get(day) ?? 0;
    rows.push({ day, staged, delivered, deadLetters, landed: delivered - missing, missing });
  }
  return rows;
}

export function threeYearResult(): VerifyResult {
  const rows = orderRows(days('2023-01-01', 1096));
  const summary = summarize(rows);
  return {
    staging: '/data/migration <2023-2025>.db',
    project: 'prod',
    apiHost: 'https://eu.posthog.com',
    projectId: '4242',
    method: 'uuids',
    importRun: 'run-0193b1',
    since: null,
    until: null,
    byEvent: false,
    rows,
    summary,
    queries: 1,
    wait: { readings: 1, ended: 'no-wait', waitedMs: 0 },
    resend: null,
    figures: {
      sources: 36,
      events: { count: summary.totals.staged - 2500, first: '2023-01-01T00:00:03.000Z', last: '2025-12-31T23:59:58.000Z' },
      persons: { count: 2000, first: '2023-01-01T00:00:00.000Z', last: '2025-12-31T00:00:00.000Z' },
      groups: { count: 500, first: '2023-01-01T00:00:00.000Z', last: '2025-12-31T00:00:00.000Z' },
      rejected: 57,
      rejectsByReason: [
        { reason: 'invalid_timestamp', count: 41 },
        { reason: 'missing_distinct_id', count: 16 },
      ],
      project: {
        name: 'prod',
        role: 'production',
        host: 'https://eu.i.posthog.com',
        delivered: summary.totals.delivered,
        deliveredPersons: 2000,
        deliveredReassertions: 0,
        deliveredGroups: 500,
        pending: 0,
        deadLetters: summary.totals.deadLetters,
        lastImport: { status: 'done', startedAt: '2026-01-10T09:00:00.000Z', finishedAt: '2026-01-10T11:31:00.000Z', stopReason: null, sample: null, pace: null },
        testFirstOverrideAt: null,
      },
      deadLettersByReason: [{ status: 400, message: 'Invalid event <script>alert("x")</script> & "quotes"', count: summary.totals.deadLetters }],
      requeued: 0,
    },
    checkedAt: '2026-01-10T12:00:00.000Z',
  };
}
