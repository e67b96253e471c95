import type { Route } from '../router.js';

/** Ingestion endpoints (/batch/, /e/, /capture/, /i/v0/e/). */
export const captureRoutes: Route[] = [];
