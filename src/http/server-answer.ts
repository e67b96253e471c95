/**
 * What a server's error answer says, read the same way for ingestion and for the management
 * API: its message in one line, and how long it asks us to wait. Pure.
 */

const MAX_MESSAGE_CHARS = 500;

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The server's explanation from an error body: JSON `error`/`detail`/`message`, else the text. */
export function serverMessage(body: Buffer): string {
  const text = body.toString('utf8').trim();
  if (text === '') return '(no message)';
  const parsed = parseJson(text);
  for (const field of ['error', 'detail', 'message']) {
    const value = parsed?.[field];
    if (typeof value === 'string' && value !== '') {
      const code = typeof parsed?.code === 'string' ? ` (${parsed.code})` : '';
      return `${value}${code}`.slice(0, MAX_MESSAGE_CHARS);
    }
  }
  // Older servers answer in plain text.
  return text.replace(/\s+/g, ' ').slice(0, MAX_MESSAGE_CHARS);
}

/**
 * A Retry-After value (delta-seconds or an HTTP date) in ms from `nowMs`, rounded up so a
 * retry never comes before the time asked; undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** A throttle answer's "Expected available in N seconds" (the management API says so in `detail`). */
function throttleDetailMs(bodyText: string): number | undefined {
  const detail = parseJson(bodyText)?.detail;
  const seconds = typeof detail === 'string' ? /Expected available in (\d+(?:\.\d+)?) seconds?/.exec(detail)?.[1] : undefined;
  return seconds === undefined ? undefined : Math.ceil(Number(seconds) * 1000);
}

/** How long the server asks us to wait, in ms: `Retry-After`, else a throttle detail; undefined when it does not say. */
export function retryAfterMs(headers: Record<string, string>, bodyText: string, nowMs: number): number | undefined {
  return parseRetryAfter(headers['retry-after'], nowMs) ?? throttleDetailMs(bodyText);
}
