// The pace step: the built CLI's import against the sandbox's capture rate limit on loopback
// (`migrate sandbox --rate-limit`), in three scenarios: a steady 3,000 events/s (with
// --max-rate 0, as the issue measured it, and with a ceiling of 10,000 above the limit), a limit
// that drops from 6,000 to 1,500 events/s and back (changed live through POST
// /_sandbox/rate-limit), and no limit under a ceiling of 20,000 and with none. The sandbox's own counts,
// polled every 100 ms, give the accepted rate over time.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseJson, removeStaging } from './bench-steps.mjs';
import { measureNode } from './measure-process.mjs';
import { startSandbox } from './sandbox-process.mjs';

/** Events staged for the pace step: enough for each scenario (the longest is the step change). */
const PACE_EVENTS = 150_000;

/** @param {import('./bench-steps.mjs').BenchPaths} p */
async function stagedSource(p) {
  const source = join(p.work, `pace-source-${PACE_EVENTS}.csv`);
  const staged = join(p.work, `pace-staged-${PACE_EVENTS}.db`);
  if (!existsSync(source)) {
    const child = spawn(process.execPath, [join(p.root, 'bench', 'generate-source.mjs'), `${source}.partial`, String(PACE_EVENTS)], { stdio: 'ignore' });
    const code = await new Promise((done, fail) => child.once('error', fail).once('close', done));
    if (code !== 0) throw new Error(`bench/generate-source.mjs exited with ${code}`);
    renameSync(`${source}.partial`, source);
    renameSync(`${source}.partial.meta.json`, `${source}.meta.json`);
  }
  if (!existsSync(staged)) await measureNode([p.cli, 'export-source', '--from', 'csv', source, '--staging', staged, '--quiet', '--json'], { label: 'pace: export-source' });
  return staged;
}

/**
 * One import against a rate-limited sandbox; `schedule` changes the limit at times (ms) after the import starts.
 * @param {import('./bench-steps.mjs').BenchPaths} p @param {string} staged
 * @param {{ limit: number, schedule?: Array<[number, number]>, maxEvents: number, args: string[] }} s
 */
async function paceRun(p, staged, s) {
  const copy = join(p.work, 'pace-import.db');
  removeStaging(copy);
  copyFileSync(staged, copy);
  const sandbox = await startSandbox(p.cli, ['--rate-limit', String(s.limit)]);
  /** @type {Array<[number, number]>} */
  const counts = [];
  const timers = [];
  try {
    const project = { role: 'test', host: sandbox.url, apiKey: sandbox.testProject.apiKey, projectId: String(sandbox.testProject.id) };
    writeFileSync(p.config, JSON.stringify({ projects: { test: project } }, null, 2));
    const args = [p.cli, 'import', '--project', 'test', '--staging', copy, '--config', p.config, '--sample', String(s.maxEvents), '--quiet', '--json', ...s.args];
    const startMs = Date.now();
    for (const [atMs, limit] of s.schedule ?? []) timers.push(setTimeout(() => void fetch(`${sandbox.url}/_sandbox/rate-limit?events_per_sec=${limit}`, { method: 'POST' }), atMs));
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const stats = await sandbox.stats();
        counts.push([Date.now() - startMs, stats.eventsByProject[String(sandbox.testProject.id)] ?? 0]);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const m = await measureNode(args, { label: 'pace: migrate import' });
    polling = false;
    await poll;
    const summary = parseJson(m.stdout, 'pace: migrate import');
    const stats = await sandbox.stats();
    return { summary, counts, answers429: stats.answers['429'] ?? 0, requests: stats.requests, counted: stats.eventsByProject[String(sandbox.testProject.id)] ?? 0 };
  } finally {
    for (const t of timers) clearTimeout(t);
    await sandbox.stop();
    removeStaging(copy);
  }
}

/** Events accepted per second between two times (ms after the start), from the polled counts. @param {Array<[number, number]>} counts */
function rateBetween(counts, fromMs, toMs) {
  const at = (/** @type {number} */ t) => counts.findLast(([ms]) => ms <= t)?.[1] ?? 0;
  return ((at(toMs) - at(fromMs)) * 1000) / (toMs - fromMs);
}

/** How long after `fromMs` the accepted rate over 2 s first comes within 20% of `limit` (the end of that window). @param {Array<[number, number]>} counts */
function trackedAfterMs(counts, limit, fromMs, toMs) {
  for (let t = fromMs; t + 2000 <= toMs; t += 100) if (Math.abs(rateBetween(counts, t, t + 2000) / limit - 1) <= 0.2) return t + 2000 - fromMs;
  return null;
}

/** @param {import('./bench-steps.mjs').BenchPaths} p */
export async function paceStep(p) {
  const t0 = Date.now();
  const staged = await stagedSource(p);
  /** @param {number} maxRate */
  const steady = async (maxRate) => {
    const r = await paceRun(p, staged, { limit: 3000, maxEvents: 120_000, args: ['--max-rate', String(maxRate)] });
    // The CLI's own counts: the sandbox counts every request, its stats polls included.
    return { maxRate, ratio: r.summary.eventsPerSec / 3000, refused: r.summary.refused, requests: r.summary.requests, summary: r.summary, lost: r.summary.delivered !== r.counted };
  };
  const steady0 = await steady(0);
  const steady10k = await steady(10_000);
  // 6,000 for 10 s, 1,500 for 15 s, then 6,000 again: chunks of 100 events (a one-second window
  // of 1,500 takes at most one chunk of 1,000).
  const step = await paceRun(p, staged, {
    limit: 6000,
    schedule: [
      [10_000, 1500],
      [25_000, 6000],
    ],
    maxEvents: 150_000,
    args: ['--max-rate', '0', '--chunk-events', '100'],
  });
  const down = trackedAfterMs(step.counts, 1500, 10_000, 25_000);
  const up = trackedAfterMs(step.counts, 6000, 25_000, step.summary.elapsedMs);
  const free = await paceRun(p, staged, { limit: 0, maxEvents: 100_000, args: ['--max-rate', '20000'] });
  const ceilingAfterMs = free.counts.find(([ms]) => ms >= 1000 && rateBetween(free.counts, ms - 1000, ms) >= 0.9 * 20_000)?.[0] ?? null;
  // No limit and no ceiling: the slow start grows until the pace no longer holds the run back;
  // "reached" is 90% of the run's own busiest second (what this machine and --concurrency make).
  const open = await paceRun(p, staged, { limit: 0, maxEvents: 100_000, args: ['--max-rate', '0'] });
  const perSecond = open.counts.filter(([ms]) => ms >= 1000).map(([ms]) => /** @type {[number, number]} */ ([ms, rateBetween(open.counts, ms - 1000, ms)]));
  const busiest = Math.max(0, ...perSecond.map(([, rate]) => rate));
  const openAfterMs = perSecond.find(([, rate]) => rate >= 0.9 * busiest)?.[0] ?? null;
  return {
    wallMs: Date.now() - t0,
    load: os.loadavg()[0].toFixed(1),
    steady: [steady0, steady10k],
    step: { down, up, refused: step.answers429, requests: step.requests },
    free: { ceilingAfterMs, eventsPerSec: free.summary.eventsPerSec },
    open: { afterMs: openAfterMs, busiest: Math.round(busiest), eventsPerSec: open.summary.eventsPerSec, refused: open.summary.refused },
  };
}

/** The step's figures as lines for the report. @param {Awaited<ReturnType<typeof paceStep>>} r */
export function paceLines(r) {
  const pct = (/** @type {number} */ n, /** @type {number} */ d) => `${((n * 100) / Math.max(1, d)).toFixed(1)}%`;
  const sec = (/** @type {number | null} */ ms) => (ms === null ? 'never' : `${(ms / 1000).toFixed(1)} s`);
  return [
    ...r.steady.map(
      (s) =>
        `pace, server taking 3,000 events/s, import --max-rate ${s.maxRate}: ${s.summary.eventsPerSec.toLocaleString('en-US')} events/s = ${s.ratio.toFixed(2)}x of the limit (target 0.9x); ${s.refused} of ${s.requests} requests refused = ${pct(s.refused, s.requests)} (target 2%)${s.lost ? '; DELIVERED AND COUNTED DIFFER' : ''}.`,
    ),
    `pace, limit 6,000 -> 1,500 -> 6,000 events/s (chunks of 100): within 20% of 1,500 after ${sec(r.step.down)}, of 6,000 after ${sec(r.step.up)} (target 10 s); ${r.step.refused} of ${r.step.requests} requests refused.`,
    `pace, no limit, --max-rate 20000: 90% of the ceiling after ${sec(r.free.ceilingAfterMs)} (target 5 s); ${r.free.eventsPerSec.toLocaleString('en-US')} events/s over the run.`,
    `pace, no limit, --max-rate 0: 90% of the run's busiest second (${r.open.busiest.toLocaleString('en-US')} events/s) after ${sec(r.open.afterMs)} (target 5 s); ${r.open.eventsPerSec.toLocaleString('en-US')} events/s over the run; ${r.open.refused} refused.`,
    `pace: load average ${r.load} when the step ended (a machine busier than its cores delays the client's timers and the sandbox's answers alike).`,
  ];
}
