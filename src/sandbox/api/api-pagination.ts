/**
 * Page links as the service writes them: absolute URLs on the host the client called, with
 * limit/offset (most lists) or an opaque cursor (groups).
 */
import type { SandboxRequest } from '../router.js';

export const DEFAULT_PAGE_SIZE = 100;

function positiveInt(text: string | null): number | undefined {
  if (text === null || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

/** limit/offset from the query; bad or missing values fall back as the service's paginator does. */
export function limitOffset(url: URL, defaultLimit = DEFAULT_PAGE_SIZE): { limit: number; offset: number } {
  const limit = positiveInt(url.searchParams.get('limit'));
  return { limit: limit === undefined || limit === 0 ? defaultLimit : limit, offset: positiveInt(url.searchParams.get('offset')) ?? 0 };
}

/** The request's URL on the host it was sent to, with some query parameters replaced. */
export function linkTo(request: SandboxRequest, changes: Record<string, string | undefined>): string {
  const host = request.headers.host ?? request.url.host;
  const url = new URL(`${request.url.pathname}${request.url.search}`, `http://${host}`);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) url.searchParams.delete(name);
    else url.searchParams.set(name, value);
  }
  return url.toString();
}

export interface OffsetPage<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export function offsetPage<T>(request: SandboxRequest, results: T[], count: number, limit: number, offset: number): OffsetPage<T> {
  const next = offset + limit < count ? linkTo(request, { limit: String(limit), offset: String(offset + limit) }) : null;
  const previous = offset > 0 ? linkTo(request, { limit: String(limit), offset: offset - limit > 0 ? String(offset - limit) : undefined }) : null;
  return { count, next, previous, results };
}

/** Cursors are opaque to clients; here they carry an offset. */
export function encodeCursor(offset: number): string {
  return Buffer.from(`o=${offset}`).toString('base64url');
}

export function decodeCursor(cursor: string | null): number | undefined {
  if (cursor === null) return 0;
  const match = /^o=(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : undefined;
}

export function cursorLinks(request: SandboxRequest, offset: number, pageSize: number, hasMore: boolean): { next: string | null; previous: string | null } {
  return {
    next: hasMore ? linkTo(request, { cursor: encodeCursor(offset + pageSize) }) : null,
    previous: offset > 0 ? linkTo(request, { cursor: offset - pageSize > 0 ? encodeCursor(offset - pageSize) : undefined }) : null,
  };
}
