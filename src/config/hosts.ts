/**
 * Host rules: which URLs we send to. Plain http is only for this machine (the sandbox);
 * PostHog Cloud app hosts given for ingestion are mapped to their ingestion hosts.
 */

export type Region = 'us' | 'eu';

export const REGION_HOSTS: Readonly<Record<Region, { ingestion: string; api: string }>> = {
  us: { ingestion: 'https://us.i.posthog.com', api: 'https://us.posthog.com' },
  eu: { ingestion: 'https://eu.i.posthog.com', api: 'https://eu.posthog.com' },
};

const APP_TO_INGESTION: Readonly<Record<string, string>> = {
  'us.posthog.com': 'us.i.posthog.com',
  'app.posthog.com': 'us.i.posthog.com',
  'eu.posthog.com': 'eu.i.posthog.com',
};
const INGESTION_TO_APP: Readonly<Record<string, string>> = {
  'us.i.posthog.com': 'us.posthog.com',
  'eu.i.posthog.com': 'eu.posthog.com',
};

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * What makes two base URLs the same place, for comparing a project's hosts: every loopback
 * name is one host, case, default ports and trailing slashes are ignored.
 */
export function hostKey(base: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return base.trim().toLowerCase().replace(/\/+$/, '');
  }
  const host = isLoopbackHost(url.hostname) ? 'loopback' : url.hostname.toLowerCase();
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  return `${url.protocol}//${host}:${port}${url.pathname.replace(/\/+$/, '')}`;
}

/** A normalised base URL (no trailing slash), or an error sentence. */
export function normaliseBaseUrl(text: string): string | { error: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: `"${text}" is not a URL (expected e.g. https://us.i.posthog.com)` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { error: `"${text}" must be an http(s) URL` };
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return { error: `plain http is only allowed for loopback hosts; use https://${url.host}${url.pathname === '/' ? '' : url.pathname}` };
  }
  if (url.username || url.password) return { error: 'must not contain credentials' };
  if (url.search || url.hash) return { error: 'must not contain a query or fragment' };
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/** PostHog Cloud's app host given as an ingestion host becomes the ingestion host. */
export function toIngestionUrl(base: string): string {
  const url = new URL(base);
  const mapped = APP_TO_INGESTION[url.hostname];
  return mapped ? `https://${mapped}` : base;
}

/** The API host that goes with an ingestion host when none is configured. */
export function toApiUrl(ingestionBase: string): string {
  const url = new URL(ingestionBase);
  const mapped = INGESTION_TO_APP[url.hostname];
  return mapped ? `https://${mapped}` : ingestionBase;
}
