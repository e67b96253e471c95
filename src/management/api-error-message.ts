/**
 * Turns a management API error answer into one plain sentence and a hint, from the service's
 * `{type, code, detail, attr}` body. Pure, so every status is covered by a table of tests.
 */
import { apiErrorBodySchema, type ApiErrorBody } from './management-schemas.js';

export interface ApiFailure {
  status: number;
  /** The response body as text (JSON in the usual case). */
  body: string;
  method: string;
  /** Path of the request, for messages without a better subject. */
  path: string;
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
  const oneLine = text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
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

export function describeApiError(f: ApiFailure): ApiErrorDescription {
  const body = parseErrorBody(f.body);
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
