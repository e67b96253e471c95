/**
 * Turns a management API error answer into one plain sentence and a hint, from the service's
 * `{type, code, detail, attr}` body, naming the host that answered. Pure, so every status is
 * covered by a table of tests.
 */
import { apiErrorBodySchema, type ApiErrorBody } from './management-schemas.js';

/** PostHog's answer for a path it does not route (a retired endpoint too), before it looks at credentials. */
export const ENDPOINT_NOT_FOUND = 'Endpoint not found.';

export interface ApiFailure {
  status: number;
  /** The response body as text (JSON in the usual case). */
  body: string;
  method: string;
  /** Path of the request, for messages without a better subject. */
  path: string;
  /** The host (and port) that answered; named at the end of the message. */
  host?: string;
  /** The Location header of a redirect, if any. */
  location?: string;
  /** What the request was about, e.g. `member 0193...` or `export 12`; used for 404s. */
  what?: string;
  /** The config's name for the project, for hints. */
  projectName: string;
  projectId: string;
}

export interface ApiErrorDescription {
  /** `auth` for credentials and permissions (exit code 4), `remote` for everything else. */
  kind: 'auth' | 'remote';
  message: string;
  hints: string[];
}

export function parseErrorBody(text: string): ApiErrorBody | undefined {
  try {
    const parsed = apiErrorBodySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function plainText(text: string): string {
  const oneLine = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return oneLine.length > 200 ? `${oneLine.slice(0, 200)}...` : oneLine;
}

function describe401(body: ApiErrorBody | undefined, f: ApiFailure): ApiErrorDescription {
  const keyHint = `Check personalApiKey (or personalApiKeyEnv) of project "${f.projectName}" in the config, and that apiHost is the host the key was made on.`;
  if (body?.code === 'not_authenticated') {
    return { kind: 'auth', message: 'the API says no credentials reached it (401 not_authenticated)', hints: [keyHint] };
  }
  return { kind: 'auth', message: `the personal API key is invalid: the API refused it (401${body ? ` ${body.code}` : ''})`, hints: [keyHint] };
}

function describe403(body: ApiErrorBody | undefined, f: ApiFailure): ApiErrorDescription {
  const scope = /missing required scope '([^']+)'/.exec(body?.detail ?? '')?.[1];
  if (scope !== undefined) {
    return {
      kind: 'auth',
      message: `the personal API key lacks the scope '${scope}' (403)`,
      hints: [`Add '${scope}' to the key in PostHog (Settings > Personal API keys), or configure a key of project "${f.projectName}" that has it.`],
    };
  }
  return { kind: 'auth', message: `permission denied (403): ${body?.detail ?? plainText(f.body)}`, hints: [] };
}

function describe404(body: ApiErrorBody | undefined, f: ApiFailure): ApiErrorDescription {
  const detail = body?.detail ?? 'Not found.';
  if (body === undefined || detail === ENDPOINT_NOT_FOUND) {
    return {
      kind: 'remote',
      message: `the API has no endpoint ${f.method} ${f.path} (404${body ? ` ${detail}` : ''})`,
      hints: ['Check apiHost in the config: it must be the PostHog API host (e.g. https://us.posthog.com), not the ingestion host; an older PostHog may lack this endpoint.'],
    };
  }
  if (detail === 'Project not found.') {
    return { kind: 'remote', message: `project ${f.projectId} was not found (404), or the key cannot see it`, hints: [`Check projectId of project "${f.projectName}" in the config.`] };
  }
  const subject = f.what ?? `${f.method} ${f.path}`;
  return { kind: 'remote', message: `${subject} was not found in project ${f.projectId} (404: ${detail})`, hints: [] };
}

function describe400(body: ApiErrorBody | undefined, f: ApiFailure): ApiErrorDescription {
  if (body === undefined) return { kind: 'remote', message: `the API refused the request (400): ${plainText(f.body)}`, hints: [] };
  if (body.code === 'export_failed') return { kind: 'remote', message: `${f.what ?? 'the export'} failed to render: ${body.detail}`, hints: [] };
  const field = body.attr ? `${body.attr}: ` : '';
  return { kind: 'remote', message: `the API refused the request: ${field}${body.detail} (400 ${body.code})`, hints: [] };
}

function describeRedirect(f: ApiFailure): ApiErrorDescription {
  if (f.location === undefined || f.location === '') {
    return { kind: 'remote', message: `the API answered ${f.method} ${f.path} with a redirect (${f.status}) that has no Location`, hints: [] };
  }
  return {
    kind: 'remote',
    message: `the API redirected ${f.method} ${f.path} to ${f.location} (${f.status}); the personal API key is not sent after a redirect`,
    hints: ['Set apiHost in the config to the host the API answers on.'],
  };
}

/** Names the host after the message, so an answer from a proxy or another host is told apart from PostHog's. */
function fromHost(description: ApiErrorDescription, host: string | undefined): ApiErrorDescription {
  return host === undefined ? description : { ...description, message: `${description.message}, answered by ${host}` };
}

export function describeApiError(f: ApiFailure): ApiErrorDescription {
  return fromHost(describeStatus(f), f.host);
}

function describeStatus(f: ApiFailure): ApiErrorDescription {
  const body = parseErrorBody(f.body);
  if (f.status >= 300 && f.status < 400) return describeRedirect(f);
  switch (f.status) {
    case 401:
      return describe401(body, f);
    case 403:
      return describe403(body, f);
    case 404:
      return describe404(body, f);
    case 400:
      return describe400(body, f);
    case 429:
      return { kind: 'remote', message: `the API kept throttling the requests (429): ${body?.detail ?? plainText(f.body)}`, hints: ['Wait a minute and run the command again.'] };
    default: {
      const detail = body ? `${body.detail} (${body.code})` : plainText(f.body) || 'no details';
      const what = f.status >= 500 ? 'the API failed' : 'unexpected answer from the API';
      return { kind: 'remote', message: `${what} (${f.status}) for ${f.method} ${f.path}: ${detail}`, hints: [] };
    }
  }
}

/**
 * An error answer from the storage host an export's content was redirected to. The personal
 * key never goes there, so a 401 or 403 is about the signed link (expired, or refused), not
 * about the key: it is reported as the storage host's, with exit code 8.
 */
export function describeStorageError(status: number, host: string, what: string): string {
  if (status >= 300 && status < 400) return `the storage host ${host} answered the download of ${what} with another redirect (${status}), which is not followed`;
  if (status === 401 || status === 403 || status === 404) {
    return `the storage host ${host} refused the download of ${what} (${status}); the signed link may have expired`;
  }
  return `the storage host ${host} failed to serve ${what} (${status})`;
}
