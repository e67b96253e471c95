/**
 * Walks a list by its `next` links, offset or cursor alike. Each link passes the client's
 * host check, so a page pointing elsewhere stops the walk with an error and no request.
 */
import type { z } from 'zod';
import { RemoteError } from '../errors.js';
import type { ApiCall, ManagementClient } from './management-client.js';

type PageSchema = z.ZodType<{ next: string | null; results: unknown[] }>;

export async function* followPages<S extends PageSchema>(client: ManagementClient, first: ApiCall, schema: S): AsyncGenerator<z.infer<S>> {
  const seen = new Set<string>();
  let call: ApiCall = first;
  for (;;) {
    const page = await client.json(call, schema);
    yield page;
    if (page.next === null) return;
    if (seen.has(page.next)) throw new RemoteError(`the API's page links loop (${new URL(page.next).pathname}); stopping`);
    seen.add(page.next);
    call = { method: 'GET', path: page.next, what: first.what };
  }
}

/** Every result of every page. */
export async function collectAll<S extends PageSchema>(client: ManagementClient, first: ApiCall, schema: S): Promise<z.infer<S>['results']> {
  const results: unknown[] = [];
  for await (const page of followPages(client, first, schema)) results.push(...page.results);
  return results as z.infer<S>['results'];
}
