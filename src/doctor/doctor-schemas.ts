/** The management API answers doctor reads, as zod schemas (loose: PostHog sends more fields). */
import { z } from 'zod';
import { offsetPageSchema } from '../management/management-schemas.js';

/** A project with its project API key (`GET /api/projects/:id/`, and the list). */
export const projectWithTokenSchema = z.looseObject({ id: z.number().int(), name: z.string(), api_token: z.string() });
export const projectsWithTokenPageSchema = offsetPageSchema(projectWithTokenSchema);

/** `GET /api/personal_api_keys/@current/`: the key that made the request. PostHog answers `["*"]` for a key without scopes. */
export const currentKeySchema = z.looseObject({
  scopes: z.array(z.string()),
  scoped_teams: z.array(z.number().int()).nullish(),
  scoped_organizations: z.array(z.string()).nullish(),
});

/** `POST /api/projects/:id/query/` with doctor's query: rows of [day, count]. */
export const dayCountsSchema = z.looseObject({ results: z.array(z.tuple([z.string(), z.number()])) });

/** `GET /api/billing/`: the organization's events usage and limit this billing period. */
export const billingSchema = z.looseObject({
  usage_summary: z.looseObject({ events: z.looseObject({ usage: z.number().nullish(), limit: z.number().nullish() }).nullish() }).nullish(),
  billing_period: z.looseObject({ current_period_end: z.string().nullish() }).nullish(),
});
