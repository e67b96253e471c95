/**
 * `POST {host}/flags/` as PostHog's feature-flag service answers it, for a project token
 * check: the sandbox has no flags, so a known token gets an empty evaluation (v2 shape with
 * `?v=2`, the legacy shape without), and an unknown token gets the service's 401, plain text.
 */
import { randomUUID } from 'node:crypto';
import type { Route, SandboxRequest, SandboxResponse } from '../router.js';
import { json } from '../router.js';
import { projectIdForToken } from '../sandbox-projects.js';
import type { SandboxStore } from '../sandbox-store.js';

export const NO_TOKEN = 'No API token provided. Please include a valid API token in your request.';
export const INVALID_TOKEN = 'The provided API key is invalid or has expired. Please check your API key and try again.';
export const MISSING_DISTINCT_ID = 'The distinct_id field is missing from the request. Please include a valid identifier.';

function text(status: number, body: string): SandboxResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body };
}

function parseBody(raw: Buffer): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    return 'expected a JSON object';
  } catch (error) {
    return (error as Error).message;
  }
}

/** Pure: the answer to a flags request, given which tokens are projects'. */
export function flagsAnswer(body: Record<string, unknown>, version: string | null, isProjectToken: (token: string) => boolean): SandboxResponse {
  const token = [body.token, body.api_key, body.$token].find((t): t is string => typeof t === 'string' && t !== '');
  if (token === undefined) return text(401, NO_TOKEN);
  if (!isProjectToken(token)) return text(401, INVALID_TOKEN);
  const distinctId = body.distinct_id;
  if (distinctId === undefined || distinctId === null || distinctId === '') return text(400, MISSING_DISTINCT_ID);
  const requestId = randomUUID();
  if (Number(version) >= 2) return json(200, { errorsWhileComputingFlags: false, flags: {}, requestId });
  return json(200, { errorsWhileComputingFlags: false, featureFlags: {}, featureFlagPayloads: {}, requestId });
}

async function flags(request: SandboxRequest, store: SandboxStore): Promise<SandboxResponse> {
  const body = parseBody(await request.body());
  if (typeof body === 'string') return text(400, `Failed to parse request: ${body}. Please ensure your request is properly formatted and all required fields are present.`);
  return flagsAnswer(body, request.url.searchParams.get('v'), (token) => projectIdForToken(store, token) !== undefined);
}

export const flagsRoutes: Route[] = [{ method: 'POST', path: /^\/flags\/?$/, handler: (request, { store }) => flags(request, store) }];
