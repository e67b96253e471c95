import type { Route } from '../router.js';
import { exportsRoutes } from './exports-routes.js';
import { groupsRoutes } from './groups-routes.js';
import { membersRoutes } from './members-routes.js';
import { projectsRoutes } from './projects-routes.js';

/** Management API endpoints (/api/...). */
export const apiRoutes: Route[] = [...projectsRoutes, ...membersRoutes, ...exportsRoutes, ...groupsRoutes];
