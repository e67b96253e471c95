/**
 * The management API's one error body, `{type, code, detail, attr}`, and the answers the
 * sandbox gives with it. Wording follows the service, so clients meet the same messages here.
 */
import { json, type SandboxResponse } from '../router.js';

export function apiError(status: number, type: string, code: string, detail: string, attr: string | null = null, headers: Record<string, string> = {}): SandboxResponse {
  return json(status, { type, code, detail, attr }, headers);
}

export const notAuthenticated = (): SandboxResponse => apiError(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided.');

export const authenticationFailed = (): SandboxResponse => apiError(401, 'authentication_error', 'authentication_failed', 'Personal API key found in request Authorization header is invalid.');

export const permissionDenied = (detail: string): SandboxResponse => apiError(403, 'authentication_error', 'permission_denied', detail);

export const missingScope = (scope: string): SandboxResponse => permissionDenied(`API key missing required scope '${scope}'`);

export const notFound = (detail = 'Not found.'): SandboxResponse => apiError(404, 'invalid_request', 'not_found', detail);

export const validationError = (code: string, detail: string, attr: string | null): SandboxResponse => apiError(400, 'validation_error', code, detail, attr);

export const required = (attr: string): SandboxResponse => validationError('required', 'This field is required.', attr);

export const throttled = (waitSeconds: number): SandboxResponse =>
  apiError(429, 'throttled_error', 'throttled', `Request was throttled. Expected available in ${waitSeconds} seconds.`, null, {
    'retry-after': String(waitSeconds),
  });
