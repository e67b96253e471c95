/**
 * Runs the built CLI (dist/): integration tests drive the real program, exit codes and output
 * included. runCli runs it in this process (see in-process-cli.ts) unless the process itself is
 * the point; startCli and runCliProcess start `bin/migrate.js` as a subprocess, for tests that
 * signal it, kill it, run it as another user or read how the process ended.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { missingMainThreadFlags } from '../../src/util/main-thread-flags.js';
import { runInProcess } from './in-process-cli.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = fileURLToPath(new URL('../../bin/migrate.js', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  input?: string;
  /** A command to run the CLI under, e.g. `['setpriv', '--reuid=65534', ...]` to run it as another user. */
  wrapper?: string[];
  /** The bin/migrate.js to start (a copy, see other-user.ts); this checkout's by default. */
  cli?: string;
  /** A process of its own even for runCli: the process is the point (an error escaping to it, how it ends, a real SIGKILL by the kill hook). */
  ownProcess?: boolean;
}

/**
 * The main thread's flags (main-thread-flags.ts) given to Node up front, so bin/migrate.js does
 * not start Node a second time in each subprocess (a third of a short run's CPU). A test that
 * sets NODE_OPTIONS itself is about those flags and gets none: its CLI starts as a user's does.
 */
function nodeFlags(options: CliOptions): string[] {
  return options.env !== undefined && 'NODE_OPTIONS' in options.env ? [] : missingMainThreadFlags([], process.env.NODE_OPTIONS);
}

/** NODE_OPTIONS with the main thread's flags, for a script that starts the CLI itself (scripts/demo.mjs): each start then runs Node once. */
export function nodeOptionsWithFlags(): string {
  return [process.env.NODE_OPTIONS ?? '', ...missingMainThreadFlags([], process.env.NODE_OPTIONS)].join(' ').trim();
}

/** Starts the CLI; the caller may signal the child before awaiting `done`. */
export function startCli(args: string[], options: CliOptions = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const [command, ...prefix] = [...(options.wrapper ?? []), process.execPath];
  const child = spawn(command!, [...prefix, ...nodeFlags(options), options.cli ?? CLI, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  // A child that stops before reading all its input (killed, interrupted) closes the pipe: EPIPE here is its doing, not an error of the test.
  child.stdin!.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  child.stdin!.end(options.input ?? '');
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** The CLI as a subprocess, to its end. */
export function runCliProcess(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

/**
 * Runs that need a process of their own: asked for, or under another user. A run the kill hook
 * ends (MIGRATE_TEST_KILL_AFTER_PIECES) runs in-process with a stand-in for its SIGKILL that
 * leaves the same files (in-process-kill.ts), unless `ownProcess` asks for the real kill.
 */
function needsProcess(options: CliOptions): boolean {
  return options.ownProcess === true || options.wrapper !== undefined || options.cli !== undefined;
}

/** The CLI to its end: in-process, or as a subprocess when the process is the point (see needsProcess). */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return needsProcess(options) ? runCliProcess(args, options) : runInProcess(REPO_ROOT, CLI, args, options);
}
