/**
 * bin/migrate.js starts Node again with the main thread's flags, in the same process: same pid
 * (signals and exit codes reach the caller as before), the flag in Node's arguments, once.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAIN_SEMI_SPACE_MB } from '../../src/util/main-thread-flags.js';
import { startCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

/** Runs `migrate --version` with NODE_OPTIONS; returns its pid and, per Node image that exited, its pid and arguments. */
async function nodesSeen(nodeOptions: string): Promise<{ pid: number | undefined; seen: Array<{ pid: number; execArgv: string[] }> }> {
  const dir = tempDir();
  const seen = join(dir, 'seen.txt');
  const preload = join(dir, 'preload.cjs');
  // Loaded by every Node image the process runs; exit handlers run only in the image that exits.
  writeFileSync(preload, `process.on('exit', () => require('node:fs').appendFileSync(${JSON.stringify(seen)}, JSON.stringify({ pid: process.pid, execArgv: process.execArgv }) + '\\n'));\n`);
  const run = startCli(['--version'], { env: { NODE_OPTIONS: `--require ${preload} ${nodeOptions}` } });
  const result = await run.done;
  expect(result).toMatchObject({ code: 0, stderr: '' });
  const lines = readFileSync(seen, 'utf8').trim().split('\n');
  return { pid: run.child.pid, seen: lines.map((line) => JSON.parse(line) as { pid: number; execArgv: string[] }) };
}

describe('the main thread’s flags', () => {
  it('are set by starting Node again in the same process, once', async () => {
    const { pid, seen } = await nodesSeen('');
    expect(seen).toEqual([{ pid, execArgv: [`--max-semi-space-size=${MAIN_SEMI_SPACE_MB}`] }]);
  });

  it('leave a value the user gave Node alone, without starting again', async () => {
    const { pid, seen } = await nodesSeen('--max-semi-space-size=4');
    expect(seen).toEqual([{ pid, execArgv: [] }]);
  });
});
