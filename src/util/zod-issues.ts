import type { z } from 'zod';

/** zod issues as `path: message` lines, the form every validation error of ours takes. */
export function formatZodIssues(error: z.ZodError, prefix = ''): string[] {
  return error.issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter((p) => p !== '').join('.');
    return `${path || '(root)'}: ${issue.message}`;
  });
}
