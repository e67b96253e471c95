/**
 * Why capture refused a request, as newer PostHog servers say it:
 * `{"status":400,"code":"missing_distinct_id","error":"event submitted without a distinct_id"}`.
 */
import { json, type SandboxResponse } from '../router.js';

export interface CaptureProblem {
  problem: true;
  status: 400 | 401 | 413;
  code: string;
  error: string;
}

export function captureProblem(status: CaptureProblem['status'], code: string, error: string): CaptureProblem {
  return { problem: true, status, code, error };
}

export function isProblem(value: unknown): value is CaptureProblem {
  return typeof value === 'object' && value !== null && (value as CaptureProblem).problem === true;
}

export function problemResponse(p: CaptureProblem): SandboxResponse {
  return json(p.status, { status: p.status, code: p.code, error: p.error });
}
