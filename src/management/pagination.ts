/**
 * Walks a list by its `next` links, offset or cursor alike. Each link passes the client's
 * host check, so a page pointing elsewhere stops the walk with an error and no request.
 */
import type { z } from 'zod';
import { RemoteError } from '../errors.js';
import type { ManagementClient } from './management-client.js';

type PageSchema = z.ZodType<{ next: string | null; results: unknown[] }>;

export interface PageWalk<S extends PageSchema> {
  schema: S;
  /** Fetches the first page (through the client, or under the project's prefix). */
  first: () => Promise<z.infer<S>>;
  /** What the list is about, for "not found" messages. */
  what?: string;
}

function linkPath(link: string): string {
  try {
    return new URL(link).pathname;
  } catch {
    return link;
  }
}

export async function* followPages<S extends PageSchema>(client: ManagementClient, walk: PageWalk<S>): AsyncGenerator<z.infer<S>> {
  const seen = new Set<string>();
  let page = await walk.first();
  for (;;) {
    yield page;
    if (page.next === null) return;
    if (seen.has(page.next)) throw new RemoteError(`the API's page links loop (${linkPath(page.next)}); stopping`);
    seen.add(page.next);
    page = await client.json({ method: 'GET', path: page.next, what: walk.what }, walk.schema);
  }
}

/** Every result of every page. */
export async function collectAll<S extends PageSchema>(client: ManagementClient, walk: PageWalk<S>): Promise<z.infer<S>['results']> {
  const results: unknown[] = [];
  for await (const page of followPages(client, walk)) results.push(...page.results);
  return results as z.infer<S>['results'];
}
