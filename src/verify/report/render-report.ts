/**
 * The verify report as one self-contained HTML page: no script, no request of any kind (a
 * content security policy forbids them), the chart as inline SVG. Someone looking at a
 * three-year migration sees at once whether it is whole, which days are not, and why events
 * were refused. Pure: data in, HTML out.
 */
import { count, plural } from '../../util/format.js';
import { perDay, type VerifyRow } from '../verify-table.js';
import type { VerifyResult } from '../verify-project.js';
import { summaryLine } from '../verify-wording.js';
import { dayChart } from './day-chart.js';
import { escapeHtml as esc } from './html-escape.js';
import { REPORT_STYLE } from './report-style.js';

function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>, empty: string): string {
  if (rows.length === 0) return `<p class="empty">${esc(empty)}</p>`;
  const th = head.map((h) => `<th>${esc(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c, i) => `<td${i > 0 && /^[\d,]+$/.test(c) ? ' class="n"' : ''}>${esc(c)}</td>`).join('')}</tr>`).join('');
  return `<table><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table>`;
}

function total(name: string, label: string, value: number, tone = ''): string {
  return `<div class="total ${tone}"><div class="value" data-total="${name}">${count(value)}</div><div class="label">${esc(label)}</div></div>`;
}

function totals(r: VerifyResult): string {
  const t = r.summary.totals;
  return [
    '<section class="totals">',
    total('staged', 'staged', t.staged),
    total('delivered', 'delivered (accepted by PostHog)', t.delivered),
    total('landed', 'landed (distinct uuids in PostHog)', t.landed, r.summary.complete ? 'good' : ''),
    total('missing', 'missing', r.summary.missing, r.summary.missing > 0 ? 'bad' : 'good'),
    total('dead-letters', 'dead letters', t.deadLetters),
    total('pending', 'pending (not sent yet)', t.pending),
    total('rejected', 'rejected rows (not staged)', r.figures.rejected),
    '</section>',
  ].join('');
}

function shortRows(r: VerifyResult): string {
  const short = r.rows.filter((row) => row.missing > 0);
  const head = ['day', ...(r.byEvent ? ['event'] : []), 'staged', 'delivered', 'landed', 'missing'];
  const rows = short.map((row: VerifyRow) => [row.day, ...(r.byEvent ? [row.event ?? ''] : []), count(row.staged), count(row.delivered), count(row.landed), count(row.missing)]);
  return table(head, rows, 'None: every day holds all it was sent.');
}

function statusSection(r: VerifyResult): string {
  const f = r.figures;
  const kind = (label: string, k: { count: number; first: string | null; last: string | null }): string[] => [label, count(k.count), k.first ?? '', k.last ?? ''];
  const staged = table(['staged', 'count', 'first', 'last'], [kind('events', f.events), kind('person updates ($identify)', f.persons), kind('group updates ($groupidentify)', f.groups)], '');
  const p = f.project;
  const project =
    p === null
      ? []
      : [
          ['host', p.host],
          ['role', p.role],
          ['delivered', count(p.delivered)],
          ['pending', count(p.pending)],
          ['dead letters', count(p.deadLetters)],
          ['last import', p.lastImport === null ? 'none' : `${p.lastImport.status}, started ${p.lastImport.startedAt}`],
          ['re-queued by verify', count(f.requeued)],
        ];
  return `<h2>Status</h2><p>${plural(f.sources, 'source file')} staged.</p>${staged}<h3>Project ${esc(r.project)}</h3>${table(['', ''], project, '')}`;
}

function reasons(r: VerifyResult): string {
  const dead = r.figures.deadLettersByReason.map((d) => [`HTTP ${d.status}`, d.message, count(d.count)]);
  const rejects = r.figures.rejectsByReason.map((x) => [x.reason, count(x.count)]);
  return [
    '<h2>Dead letters by reason</h2>',
    table(['status', 'server message', 'events'], dead, 'No dead letters: the server refused nothing.'),
    '<h2>Rejected rows by reason</h2>',
    table(['reason', 'rows'], rejects, 'No rejected rows.'),
  ].join('');
}

function header(r: VerifyResult): string {
  const verdict = r.summary.complete ? 'complete' : 'short';
  const method = 'the uuids of delivered events PostHog holds, each once';
  return [
    `<header><h1>Migration check: project ${esc(r.project)}</h1>`,
    `<p class="meta">${esc(r.apiHost)}, project id ${esc(r.projectId)} &middot; staging file ${esc(r.staging)} &middot; checked ${esc(r.checkedAt)}</p></header>`,
    `<p class="verdict ${verdict}" data-verdict="${verdict}">${esc(summaryLine(r.summary))}</p>`,
    `<p class="meta">Landed counts ${esc(method)} (${plural(r.queries, 'query', 'queries')}).${r.resend !== null && r.resend.requeued > 0 ? ` Re-queued and re-sent ${plural(r.resend.requeued, 'event')} (import run ${r.resend.runId}).` : ''}</p>`,
  ].join('');
}

function legend(): string {
  return '<p class="legend"><span class="key staged"></span>staged <span class="key delivered"></span>delivered <span class="key landed"></span>landed <span class="key short"></span>short day</p>';
}

export function renderVerifyReport(r: VerifyResult): string {
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>migrate verify: ${esc(r.project)}</title><style>${REPORT_STYLE}</style></head><body>`,
    header(r),
    totals(r),
    `<h2>Events per UTC day</h2>${legend()}<div class="chart-box">${dayChart(perDay(r.rows))}</div>`,
    `<h2>Short days</h2>${shortRows(r)}`,
    reasons(r),
    statusSection(r),
    '</body></html>',
  ].join('\n');
}
