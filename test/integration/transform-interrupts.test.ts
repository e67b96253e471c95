/**
 * A transform is the user's code and may never return: Ctrl-C and SIGTERM still stop the run
 * (its pieces are read on worker threads, stopped on an interrupt), with exit 130 and the
 * resume hint; a module whose top-level await never settles is an error in words (exit 2),
 * not a silent exit 13. A real subprocess and real signals: the transform leaves a mark before
 * it loops, and the signal is sent once the mark is there, never after a sleep.
 */
import { watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/run-cli.js';
import { readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

/**
 * Pieces of 64 Ki characters (a test hook, see stage-run.ts): about 1,450 rows of ~45 bytes a
 * piece, so the rows before the hang fill six pieces, well past the 4,096 rows a commit of
 * pieces read on threads holds (piece-pool.ts): something is staged before the transform loops.
 */
const PIECES = { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024) };
const ROWS = 10_000;
const HANGS_AT = 9_500;

function prepare(dir: string): { csv: string; transform: string; staging: string; mark: string } {
  const lines = ['event,distinct_id,timestamp,k'];
  for (let i = 0; i < ROWS; i++) lines.push(`viewed,u${i % 100},2025-09-01T10:00:00Z,1-${i}`);
  const csv = join(dir, 'events.csv');
  writeFileSync(csv, lines.join('\n') + '\n');
  const transform = join(dir, 'hang.mjs');
  const mark = join(dir, 'looping');
  writeFileSync(
    transform,
    ["import { writeFileSync } from 'node:fs';", `export default (e) => { if (e.properties.k === '1-${HANGS_AT}') { writeFileSync(${JSON.stringify(mark)}, ''); for (;;) {} } return e; };`, ''].join(
      '\n',
    ),
  );
  return { csv: 'events.csv', transform: 'hang.mjs', staging: join(dir, 'm.db'), mark: 'looping' };
}

/** Starts export-source and sends `signal` once the transform is looping. */
async function interrupted(dir: string, extra: string[], signal: NodeJS.Signals) {
  const { csv, transform, staging, mark } = prepare(dir);
  const run = startCli(['export-source', '--from', 'csv', csv, '--transform', transform, '--staging', staging, ...extra], { cwd: dir, env: PIECES });
  let sent = false;
  const watcher = watch(dir, (_event, name) => {
    if (name === mark && !sent) {
      sent = true;
      run.child.kill(signal);
    }
  });
  const result = await run.done;
  watcher.close();
  return { result, staging, csv, transform };
}

describe('a transform that never returns', () => {
  const tempDir = useTempDir();

  it.each<[string, string[], NodeJS.Signals]>([
    ['Ctrl-C, workers as the run chooses', [], 'SIGINT'],
    ['SIGTERM, --workers 1', ['--workers', '1'], 'SIGTERM'],
    ['Ctrl-C, --workers 0', ['--workers', '0'], 'SIGINT'],
  ])('%s: stops with exit 130 and the resume hint', { timeout: 60_000 }, async (_name, extra, signal) => {
    const dir = tempDir();
    const { result, staging } = await interrupted(dir, extra, signal);
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/error: interrupted while staging events\.csv: staged up to line \d/);
    expect(result.stderr).toContain('Run the same command again: it resumes from there');
    const status = readStaging(staging, (db) => db.prepare('SELECT status FROM source_reads').pluck().all());
    expect(status).toEqual(['reading']); // partial, resumable
  });

  it('a top-level await that never settles: an error in words, exit 2 (in a process of its own: Node tells it only as the process ends)', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const { csv, staging } = prepare(dir);
    const stalled = join(dir, 'stalled.mjs');
    writeFileSync(stalled, 'await new Promise(() => {});\nexport default (e) => e;\n');
    const result = await runCli(['export-source', '--from', 'csv', csv, '--transform', stalled, '--staging', staging], { cwd: dir, ownProcess: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: --transform stalled.mjs: the module never finished loading: a top-level await in it waits on something that never comes');
  });
});
