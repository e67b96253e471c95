/**
 * Finding the export a create request made when its answer never came (PostHog renders before
 * it answers, so a slow render outlasts the request while the export exists): the newest of
 * the caller's exports that matches the request, created since the request was sent. Pure.
 */
import type { ExportRequest } from './management-api.js';
import type { Export } from './management-schemas.js';

/** How far the server's clock may run behind ours, in ms, for "created since the request". */
export const CLOCK_SKEW_ALLOWANCE_MS = 10 * 60_000;

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** Every field the request gave the context is in the export's context, equal (the server may add fields). */
function contextMatches(requested: Record<string, unknown> | undefined, stored: unknown): boolean {
  if (requested === undefined) return true;
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return false;
  return Object.entries(requested).every(([key, value]) => canonical((stored as Record<string, unknown>)[key]) === canonical(value));
}

export function exportMatches(e: Export, request: ExportRequest): boolean {
  return (
    e.export_format === request.export_format &&
    (e.dashboard ?? null) === (request.dashboard ?? null) &&
    (e.insight ?? null) === (request.insight ?? null) &&
    contextMatches(request.export_context, e.export_context)
  );
}

/** The newest export matching `request` created at or after `sentAtMs` (less the skew allowance). */
export function findCreatedExport(exports: readonly Export[], request: ExportRequest, sentAtMs: number): Export | undefined {
  const notBefore = sentAtMs - CLOCK_SKEW_ALLOWANCE_MS;
  return exports.filter((e) => exportMatches(e, request) && Date.parse(e.created_at) >= notBefore).sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.id - a.id)[0];
}
