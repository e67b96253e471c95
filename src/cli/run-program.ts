/**
 * Runs the program for `argv` and turns its outcome into an exit code, without exiting:
 * src/main.ts exits with it, and tests run the program in-process on streams of their own.
 */
import { CommanderError } from 'commander';
import { ExitCode, MigrateError } from '../errors.js';
import { forgetSecrets, redact } from '../util/redact.js';
import { standardStreams, withStandardStreams, type StandardStreams } from '../util/standard-streams.js';
import { buildProgram } from './program.js';

function report(message: string, hints: readonly string[] = []): void {
  const { stderr } = standardStreams();
  stderr.write(redact(`error: ${message}`) + '\n');
  for (const hint of hints) stderr.write(redact(hint) + '\n');
}

/** The exit code of the command in `argv` (node, script, command, ...); expected failures are reported on stderr. */
export async function runProgram(argv: readonly string[]): Promise<number> {
  forgetSecrets();
  try {
    await (await buildProgram(argv)).parseAsync(argv);
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed its message already; help and version are not failures.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (error instanceof MigrateError) {
      report(error.message, error.hints);
      return error.exitCode;
    }
    report(`unexpected failure: ${(error as Error)?.stack ?? String(error)}`);
    return ExitCode.internal;
  }
}

/** runProgram with `streams` as the standard streams of the run (and of all it starts). */
export function runProgramWith(argv: readonly string[], streams: StandardStreams): Promise<number> {
  return withStandardStreams(streams, () => runProgram(argv));
}
