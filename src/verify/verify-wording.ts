/** The summary sentence of a verification, shared by the terminal and the HTML report. Pure. */
import { count, plural } from '../util/format.js';
import type { VerifySummary } from './verify-table.js';

export function summaryLine(s: VerifySummary): string {
  const landed = `${count(s.totals.delivered - s.missing)} of ${count(s.totals.delivered)} delivered events landed`;
  if (s.days === 0) return 'nothing staged in this range: nothing to verify';
  if (s.complete) return `${s.days === 1 ? '1 day' : `all ${count(s.days)} days`} complete: ${landed}`;
  return `${plural(s.shortDays, 'day')} short by ${plural(s.missing, 'event')}: ${landed}`;
}
