/**
 * The entry point: runs the command and exits with its exit code (see cli/run-program.ts).
 * The only place that calls process.exit.
 */
import { runProgram } from './cli/run-program.js';
import { ExitCode } from './errors.js';

// `migrate rejects | head` closes the pipe early: that is the reader's choice, not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EIO') return; // the terminal hung up (SIGHUP): the run ends cleanly and logs beside the staging file
  if (error.code === 'EPIPE') process.exit(ExitCode.ok);
  throw error;
});

const code = await runProgram(process.argv);
// Let stdout drain before exiting: a piped `--json` result must not be cut short.
process.stdout.write('', () => process.exit(code));
