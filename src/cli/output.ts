/** stdout for results (text or --json), always through redaction. */
import { redact } from '../util/redact.js';

export function print(text = ''): void {
  process.stdout.write(redact(text) + '\n');
}

export function printJson(value: unknown): void {
  process.stdout.write(redact(JSON.stringify(value, null, 2)) + '\n');
}

/** A warning or notice for the user, on stderr. */
export function warn(text: string): void {
  process.stderr.write(redact(text) + '\n');
}
