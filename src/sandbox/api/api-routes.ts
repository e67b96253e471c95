import type { Route } from '../router.js';

/** Management API endpoints (/api/...). */
export const apiRoutes: Route[] = [];
