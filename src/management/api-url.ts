/**
 * Where the personal key may go: only to the configured API host, and only under its `/api/`
 * path (so never to ingestion endpoints, even when they share a host). Pure.
 */
import { isLoopbackHost } from '../config/hosts.js';

export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string };

/** `${apiHost}${path}?query`, leaving out undefined query values. */
export function apiUrl(apiHost: string, path: string, query: Record<string, string | number | undefined> = {}): string {
  const url = new URL(`${apiHost}${path}`);
  for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
  return url.toString();
}

/** Is this an absolute http(s) link (a server's `next`), whatever the case of its scheme? */
export function isAbsoluteHttpUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/** scheme://host:port in lower case (URL lowers scheme and host; said here, as the check depends on it). */
function originOf(url: URL): string {
  return url.origin.toLowerCase();
}

/** The host (and port) of a URL, for naming who answered in messages; the text itself when it is no URL. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** May a request carrying the personal key be sent to `target`? (Page links come from the server.) */
export function checkApiUrl(target: string, apiHost: string): UrlCheck {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { ok: false, reason: `"${target}" is not a URL` };
  }
  const base = new URL(apiHost);
  if (originOf(url) !== originOf(base)) return { ok: false, reason: `${originOf(url)} is not the configured API host ${originOf(base)}` };
  if (url.username || url.password) return { ok: false, reason: 'the link carries credentials' };
  const apiRoot = `${base.pathname.replace(/\/+$/, '')}/api/`;
  if (!url.pathname.startsWith(apiRoot)) return { ok: false, reason: `${url.pathname} is outside ${apiRoot}` };
  return { ok: true, url: url.toString() };
}

/**
 * Where a content redirect may be followed (storage links are on other hosts by design; they
 * are fetched without the key): https anywhere, plain http only on this machine.
 */
export function checkDownloadUrl(location: string, from: string): UrlCheck {
  let url: URL;
  try {
    url = new URL(location, from);
  } catch {
    return { ok: false, reason: `"${location}" is not a URL` };
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return { ok: true, url: url.toString() };
  return { ok: false, reason: `${url.protocol}//${url.host} is not https` };
}
