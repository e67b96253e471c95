/**
 * What an answer of `/batch/` means for ingestion, beyond its status. Only PostHog's
 * acknowledgement counts as delivery: capture answers an accepted batch with a JSON body whose
 * `status` is "Ok" (older versions: 1). A 2xx with anything else (a web page, an empty body,
 * other JSON) came from something that is not PostHog's capture: a wrong host, the web app's
 * address, a proxy's login page. Likewise a 400 that is not one of PostHog's JSON error shapes
 * says nothing about our events. Pure.
 */

/** An answer that did not come from PostHog's capture, as shown to the user. */
export interface ForeignAnswer {
  status: number;
  contentType: string;
  /** The first characters of the body, whitespace collapsed; "(empty body)" when there is none. */
  excerpt: string;
}

/** How a refusal (400) of a batch is to be read. */
export type RefusalMeaning = { type: 'bad-events' } | { type: 'too-large' } | { type: 'foreign'; answer: ForeignAnswer };

const EXCERPT_CHARS = 200;

function parseObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function foreignAnswer(status: number, headers: Readonly<Record<string, string>>, body: Buffer): ForeignAnswer {
  const text = body.toString('utf8').replace(/\s+/g, ' ').trim();
  return {
    status,
    contentType: headers['content-type']?.split(';')[0]?.trim() || '(no content type)',
    excerpt: text === '' ? '(empty body)' : text.slice(0, EXCERPT_CHARS),
  };
}

/** PostHog's acknowledgement of a batch: a JSON body with `status` "Ok" (older versions: 1). */
export function isAcknowledgement(body: Buffer): boolean {
  const status = parseObject(body)?.status;
  return status === 'Ok' || status === 1;
}

/**
 * PostHog's error shapes: the API's `{"type", "code", "detail"}` and capture's
 * `{"status": 400, "code", "error"}`.
 */
export function isPostHogError(body: Buffer): boolean {
  const parsed = parseObject(body);
  if (parsed === undefined) return false;
  const text = (key: string): boolean => typeof parsed[key] === 'string';
  return (text('detail') && (text('type') || text('code'))) || (text('error') && text('code'));
}

/** Some capture versions answer a body over their limit with 400 instead of 413. */
const SIZE_WORDS = /too[ _](large|big)|\bsize\b|exceed/i;

/** A 400 of `/batch/`: bad events (bisect), a size error (split like a 413), or not PostHog. */
export function refusalMeaning(status: number, headers: Readonly<Record<string, string>>, body: Buffer): RefusalMeaning {
  if (!isPostHogError(body)) return { type: 'foreign', answer: foreignAnswer(status, headers, body) };
  const parsed = parseObject(body)!;
  const words = ['error', 'detail', 'code'].map((key) => (typeof parsed[key] === 'string' ? parsed[key] : '')).join(' ');
  return SIZE_WORDS.test(words) ? { type: 'too-large' } : { type: 'bad-events' };
}

/** The one line that shows an answer: `HTTP 200 (text/html): <!DOCTYPE html>...`. */
export function describeAnswer(answer: ForeignAnswer): string {
  return `HTTP ${answer.status} (${answer.contentType}): ${answer.excerpt}`;
}
