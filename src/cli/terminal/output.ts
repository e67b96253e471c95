/** stdout for results (text or --json), always through redaction. */
import { redact } from '../../util/redact.js';
import { standardStreams } from '../../util/standard-streams.js';

export function print(text = ''): void {
  standardStreams().stdout.write(redact(text) + '\n');
}

export function printJson(value: unknown): void {
  standardStreams().stdout.write(redact(JSON.stringify(value, null, 2)) + '\n');
}

/** A warning or notice for the user, on stderr. */
export function warn(text: string): void {
  standardStreams().stderr.write(redact(text) + '\n');
}

/**
 * Prints without redaction. Only for `migrate sandbox`, whose own throwaway project keys must
 * be shown so they can be pasted into a config; never for a key read from a config.
 */
export function printUnredacted(text = ''): void {
  standardStreams().stdout.write(text + '\n');
}
