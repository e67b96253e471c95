/**
 * The reporter of the terminal: progress and notices through the progress display on stderr
 * (spinner or plain lines, nothing with --quiet), warnings always; and the frame every long
 * command runs its use case in.
 */
import type { Reporter } from '../../reporter.js';
import { logInterruptedEnd, watchInterrupts } from './interrupts.js';
import { warn } from './output.js';
import { createProgress } from './progress.js';

export interface TerminalReporter extends Reporter {
  stop(): void;
}

export function terminalReporter(options: { quiet: boolean }): TerminalReporter {
  const progress = createProgress({ quiet: options.quiet });
  return {
    progress: (text) => progress.update(text),
    notice: (text) => progress.log(text),
    // Above the spinner when there is one; never hidden.
    warn: (text) => (options.quiet ? warn(text) : progress.log(text)),
    stop: () => progress.stop(),
  };
}

export interface TerminalOptions {
  /** No progress and no notices (--quiet, or --json that keeps stderr for errors). */
  quiet: boolean;
  /** Ctrl-C, SIGTERM and SIGHUP abort the signal given to the work, instead of ending the process. */
  interrupts: boolean;
  /** With interrupts: where to log how the work ended after a signal (the terminal may be gone), and the command's name. */
  log?: { file: string; command: string };
}

/** Runs a use case with the terminal's reporter (and interrupts, if asked); both end with it. */
export async function withTerminal<T>(options: TerminalOptions, work: (reporter: Reporter, signal: AbortSignal) => Promise<T>): Promise<T> {
  const interrupts = options.interrupts ? watchInterrupts() : undefined;
  const reporter = terminalReporter({ quiet: options.quiet });
  const signal = interrupts?.signal ?? new AbortController().signal;
  try {
    const result = await work(reporter, signal);
    if (signal.aborted && options.log) logInterruptedEnd(options.log.file, options.log.command, signal, undefined);
    return result;
  } catch (error) {
    if (signal.aborted && options.log) logInterruptedEnd(options.log.file, options.log.command, signal, error);
    throw error;
  } finally {
    reporter.stop();
    interrupts?.dispose();
  }
}
