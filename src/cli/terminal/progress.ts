/**
 * Progress for long commands: an ora spinner on a terminal, a plain line every few seconds
 * otherwise (logs, CI), nothing with --quiet. Always on stderr, so stdout stays the result.
 */
import type { Ora } from 'ora';
import { systemClock, type Clock } from '../../util/clock.js';
import { redact } from '../../util/redact.js';
import { standardStreams } from '../../util/standard-streams.js';

export interface Progress {
  /** The current state, e.g. "12,000 rows (48,000 rows/s)". Cheap to call often. */
  update(text: string): void;
  /** A line that must be seen (a warning), printed above the spinner. */
  log(line: string): void;
  stop(): void;
}

export interface ProgressOptions {
  quiet?: boolean;
  stream?: NodeJS.WriteStream;
  /** Interval between plain lines when not on a terminal, in ms. Default 5000. */
  plainIntervalMs?: number;
  clock?: Clock;
}

/**
 * How progress is shown on `stream`: a spinner only on a terminal that reports its width. A
 * terminal of 0 (or unknown) columns, as `script` without a size, some CI runners and `ssh -t`
 * sessions give, gets plain lines: the spinner's redraw divides by the width and never ends.
 * NO_COLOR keeps the spinner, without colour.
 */
export function progressMode(stream: Pick<NodeJS.WriteStream, 'isTTY' | 'columns'>): 'spinner' | 'plain' {
  return stream.isTTY === true && Number.isInteger(stream.columns) && stream.columns > 0 ? 'spinner' : 'plain';
}

/** The NO_COLOR convention: any non-empty value turns colour off. */
export function colourAllowed(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return env.NO_COLOR === undefined || env.NO_COLOR === '';
}

export function createProgress(options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? standardStreams().stderr;
  if (options.quiet) return { update() {}, log() {}, stop() {} };
  if (progressMode(stream) === 'spinner') return spinnerProgress(stream);
  const clock = options.clock ?? systemClock;
  const now = (): number => clock.now();
  const interval = options.plainIntervalMs ?? 5000;
  let last = now();
  return {
    update(text) {
      if (now() - last >= interval) {
        stream.write(redact(text) + '\n');
        last = now();
      }
    },
    log(line) {
      stream.write(redact(line) + '\n');
    },
    stop() {},
  };
}

/** ora is loaded only on a terminal (it costs a tenth of a second to load); until then, no spinner. */
function spinnerProgress(stream: NodeJS.WriteStream): Progress {
  let spinner: Ora | undefined;
  let text = '';
  let stopped = false;
  void import('ora').then(({ default: ora }) => {
    if (!stopped) spinner = ora({ stream, discardStdin: false, text, color: colourAllowed() ? 'cyan' : false }).start();
  });
  return {
    update(next) {
      text = redact(next);
      if (spinner) spinner.text = text;
    },
    log(line) {
      spinner?.clear();
      stream.write(redact(line) + '\n');
      spinner?.render();
    },
    stop() {
      stopped = true;
      spinner?.stop();
    },
  };
}
