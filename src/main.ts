/**
 * The entry point: runs the command and turns its outcome into an exit code. The only place
 * that calls process.exit.
 */
import { CommanderError } from 'commander';
import { buildProgram } from './cli/program.js';
import { ExitCode, MigrateError } from './errors.js';
import { redact } from './util/redact.js';

function report(message: string, hints: readonly string[] = []): void {
  process.stderr.write(redact(`error: ${message}`) + '\n');
  for (const hint of hints) process.stderr.write(redact(hint) + '\n');
}

async function main(argv: string[]): Promise<number> {
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

// `migrate rejects | head` closes the pipe early: that is the reader's choice, not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EIO') return; // the terminal hung up (SIGHUP): the run ends cleanly and logs beside the staging file
  if (error.code === 'EPIPE') process.exit(ExitCode.ok);
  throw error;
});

const code = await main(process.argv);
// Let stdout drain before exiting: a piped `--json` result must not be cut short.
process.stdout.write('', () => process.exit(code));
