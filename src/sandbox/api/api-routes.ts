import type { Route } from '../router.js';
import { json } from '../router.js';
import { accessControlRoutes } from './access-control-routes.js';
import { billingRoutes } from './billing-routes.js';
import { configRoutes } from './config/config-routes.js';
import { exportsRoutes } from './exports-routes.js';
import { flagsRoutes } from './flags-routes.js';
import { groupsRoutes } from './groups-routes.js';
import { explicitMembersRoutes } from './members-routes.js';
import { listNotebooks } from './notebook-store.js';
import { organizationRoutes } from './organization-routes.js';
import { personalKeyRoutes } from './personal-key-routes.js';
import { projectsRoutes } from './projects-routes.js';
import { queryRoutes, type QueryOptions } from './query/query-routes.js';

/** How the management API behaves: which PostHog it imitates, and how slow its exports are. */
export interface ApiOptions {
  /** Serve the explicit-members API, as older self-hosted PostHog does. Default true; false answers 404 as Cloud. */
  explicitMembers?: boolean;
  /** How long rendering one export takes while its create request waits, in ms. Default 0. */
  exportRenderMs?: number;
  /** Older self-hosted PostHog: export content answers 404 until rendered, instead of 425. Default false. */
  exportContent404UntilReady?: boolean;
  /** Waits out `exportRenderMs`. Default a real timer; tests inject one. */
  sleep?: (ms: number) => Promise<void>;
  /** The organization's billing limit on events per month, answered by `/api/billing/`. Default none. */
  billingEventsLimit?: number;
  /** Capture drops every event as over a billing limit (`--over-quota`): billing then says the limit is reached. */
  overQuota?: boolean;
  /** Older PostHog: a personal key reading itself (`@current`) needs `personal_api_key:read`. Default false. */
  currentKeyNeedsScope?: boolean;
  /** Configuration resources whose create answers 402, as on a plan without them (e.g. `experiments`). */
  paywalled?: readonly string[];
  /** The query endpoint: row cap, execution limit (in rows read), rate limits. */
  query?: QueryOptions;
}

/** Inspection routes for tests and rehearsals, outside PostHog's API. */
const debugRoutes: Route[] = [
  {
    method: 'GET',
    path: /^\/_sandbox\/notebooks\/?$/,
    handler: (_request, { store }) => {
      const results = listNotebooks(store);
      return json(200, { count: results.length, results });
    },
  },
];

/** Management API endpoints (/api/...), the flags endpoint, and the sandbox's own inspection routes. */
export function createApiRoutes(options: ApiOptions = {}): Route[] {
  return [
    ...projectsRoutes,
    ...organizationRoutes,
    ...accessControlRoutes,
    ...explicitMembersRoutes(options.explicitMembers ?? true),
    ...exportsRoutes({ renderMs: options.exportRenderMs, content404UntilReady: options.exportContent404UntilReady, sleep: options.sleep }),
    ...groupsRoutes,
    ...queryRoutes(options.query),
    ...flagsRoutes,
    ...configRoutes({ paywalled: options.paywalled }),
    ...personalKeyRoutes(options.currentKeyNeedsScope === true),
    ...billingRoutes(options.billingEventsLimit, options.overQuota === true),
    ...debugRoutes,
  ];
}
