/** A Reporter that keeps what a use case reported, for tests to read. */
import type { Reporter } from '../../src/reporter.js';

export interface RecordingReporter extends Reporter {
  readonly progressLines: string[];
  readonly notices: string[];
  readonly warnings: string[];
}

export function recordingReporter(): RecordingReporter {
  const progressLines: string[] = [];
  const notices: string[] = [];
  const warnings: string[] = [];
  return {
    progressLines,
    notices,
    warnings,
    progress: (text) => void progressLines.push(text),
    notice: (text) => void notices.push(text),
    warn: (text) => void warnings.push(text),
  };
}
