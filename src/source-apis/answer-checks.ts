/**
 * Whether a 200 answer of a source API is the export it should be, from its sample (see
 * answer-sample.ts): a proxy's HTML page, an error object sent with a 200, or a body cut in the
 * middle of a line are not, whatever the status said. Such an answer is retried like a dropped
 * connection, and its range is never recorded as done with nothing, or half, in it. Pure.
 */
import { isZip } from '../sources/byte-head.js';
import type { AnswerSample } from './answer-sample.js';

const NEWLINE = 0x0a;
/** Characters of an answer quoted in a message. */
const QUOTED_CHARS = 80;

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > QUOTED_CHARS ? `${flat.slice(0, QUOTED_CHARS)}…` : flat);
}

function firstLine(head: Buffer): string {
  const text = head
    .toString('utf8')
    .replace(/^\ufeff/, '')
    .trimStart();
  const end = text.indexOf('\n');
  return end === -1 ? text : text.slice(0, end);
}

/** An error object in place of the data (`{"error": "Internal error, please retry"}`): its message. */
function errorObject(line: string): string | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const record = value as Record<string, unknown>;
    if ('event' in record || !('error' in record)) return undefined;
    return typeof record.error === 'string' ? record.error : JSON.stringify(record.error);
  } catch {
    return undefined;
  }
}

/** What an answer that is not data looks like, for the message; undefined when it may be data. */
function notData(head: Buffer): string | undefined {
  const line = firstLine(head);
  if (line.startsWith('<')) return `an HTML page (${quote(line)}), not an export`;
  const error = errorObject(line);
  if (error !== undefined) return `an error in place of the data: ${quote(error)}`;
  return undefined;
}

function damaged(sample: AnswerSample): string | undefined {
  return sample.damaged === undefined ? undefined : `the gzip answer does not inflate to its end (${sample.damaged}): cut short or damaged`;
}

/**
 * JSON lines (Mixpanel): empty, or lines of JSON objects each ending with a newline. The last
 * byte is the only sure sign that a body sent without a length, or one whose length was never
 * checked, arrived whole.
 */
export function jsonLinesProblem(sample: AnswerSample): string | undefined {
  const bad = damaged(sample);
  if (bad !== undefined) return bad;
  if (sample.head.toString('utf8').trim() === '') return undefined;
  const other = notData(sample.head);
  if (other !== undefined) return other;
  if (!firstLine(sample.head).startsWith('{')) return `not JSON lines (it starts ${quote(firstLine(sample.head))})`;
  if (sample.lastByte !== NEWLINE) return `the answer ends in the middle of a line, after ${sample.contentBytes} bytes: cut short`;
  return undefined;
}

/** A zip archive (Amplitude): its own checksums tell the rest when it is read. */
export function zipProblem(sample: AnswerSample): string | undefined {
  const head = sample.head;
  if (isZip(head)) return undefined;
  if (sample.contentBytes === 0) return 'an empty answer, not a zip archive';
  return notData(head) ?? `not a zip archive (it starts ${quote(firstLine(head))})`;
}
