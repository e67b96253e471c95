/**
 * Runs the built program (dist/, as bin/migrate.js does) in this test process: the same
 * commands, output and exit codes as a subprocess, without starting Node and loading the
 * command's stack for each run. Each run gets its own standard streams; the working directory
 * and the environment are the process's, so runs take turns (one at a time per test file) and
 * each puts both back as they were.
 */
import { Readable, Writable } from 'node:stream';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { runProgramWith as RunProgramWith } from '../../src/cli/run-program.js';
import type { CliOptions, CliResult } from './run-cli.js';
import { armInProcessKill } from './in-process-kill.js';

type Program = { runProgramWith: typeof RunProgramWith };

let program: Promise<Program> | undefined;
let turn: Promise<unknown> = Promise.resolve();

/** The built program, loaded once per test file (natively: vitest.config.ts leaves dist/ to Node). */
function builtProgram(root: string): Promise<Program> {
  program ??= import(pathToFileURL(join(root, 'dist', 'cli', 'run-program.js')).href) as Promise<Program>;
  return program;
}

/** A stream that keeps what is written to it, as a pipe to a subprocess would deliver it. */
function captured(): { stream: NodeJS.WriteStream; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      done();
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** Sets `env` on process.env (undefined removes a name, as for a subprocess); returns how to put it back. */
function applyEnv(env: Record<string, string | undefined>): () => void {
  const before = Object.entries(env).map(([name]) => [name, process.env[name]] as const);
  const set = (name: string, value: string | undefined): void => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  for (const [name, value] of Object.entries(env)) set(name, value);
  return () => {
    for (const [name, value] of before) set(name, value);
  };
}

async function runNow(root: string, cli: string, args: string[], options: CliOptions): Promise<CliResult> {
  const { runProgramWith } = await builtProgram(root);
  const stdout = captured();
  const stderr = captured();
  const stdin = Readable.from(options.input ? [Buffer.from(options.input)] : []);
  const cwd = process.cwd();
  // A run the kill hook ends: its stand-in here (in-process-kill.ts) leaves the files as the SIGKILL would.
  const kill = options.env?.MIGRATE_TEST_KILL_AFTER_PIECES !== undefined ? await armInProcessKill(root, () => ({ stdout: stdout.text(), stderr: stderr.text() })) : undefined;
  const restoreEnv = applyEnv({ NO_COLOR: '1', ...options.env });
  try {
    process.chdir(options.cwd ?? root);
    const code = await runProgramWith([process.execPath, cli, ...args], { stdin, stdout: stdout.stream, stderr: stderr.stream });
    const killed = kill?.killedOutput();
    if (killed !== undefined) return { code: null, signal: 'SIGKILL', ...killed };
    return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    kill?.end();
    process.chdir(cwd);
    restoreEnv();
  }
}

/** Runs `migrate <args>` in-process, after the runs started before it in this process. */
export function runInProcess(root: string, cli: string, args: string[], options: CliOptions): Promise<CliResult> {
  const run = turn.then(() => runNow(root, cli, args, options));
  turn = run.catch(() => undefined);
  return run;
}
