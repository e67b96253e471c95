/**
 * PostHog's query endpoint (`POST /api/environments/:id/query/`, scope `query:read`) for a
 * HogQL query, through the management client: the personal key, 429s waited out, error
 * answers as errors naming the missing scope.
 */
import { z } from 'zod';
import type { ManagementClient } from './management-client.js';

export const hogqlAnswerSchema = z.looseObject({
  columns: z.array(z.string()).nullish(),
  results: z.array(z.array(z.unknown())),
  /** Null when the query had its own LIMIT: PostHog does not say then whether more rows exist. */
  hasMore: z.boolean().nullish(),
  /** The project's time zone, in which HogQL shows times. */
  timezone: z.string().nullish(),
});
export type HogQLAnswer = z.infer<typeof hogqlAnswerSchema>;

export function runHogQL(client: ManagementClient, query: string): Promise<HogQLAnswer> {
  return client.json(
    {
      method: 'POST',
      path: `/api/environments/${client.target.projectId}/query/`,
      // Calculated afresh: the default answers an identical query from PostHog's cache for hours, so
      // `verify --wait` asking again would see the first answer again.
      body: { query: { kind: 'HogQLQuery', query }, refresh: 'force_blocking', name: 'migrate verify' },
      what: 'the query endpoint',
    },
    hogqlAnswerSchema,
  );
}
