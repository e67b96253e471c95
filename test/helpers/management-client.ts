/** A management client of the real kind, in-process, with a clock that never sleeps (tests may pass their own). */
import { afterEach } from 'vitest';
import { createHttpClient, type HttpClient } from '../../src/http/http-client.js';
import { managementApi, type ManagementApi } from '../../src/management/management-api.js';
import { createManagementClient, type ManagementClient, type ManagementClientOptions } from '../../src/management/management-client.js';
import { testClock } from './test-clock.js';

export interface TestClient {
  client: ManagementClient;
  api: ManagementApi;
  http: HttpClient;
}

/** Clients made through the returned function are closed after each test. */
export function useClients(): (apiHost: string, personalApiKey: string, options?: Partial<ManagementClientOptions> & { projectId?: string }) => TestClient {
  const open: HttpClient[] = [];
  afterEach(async () => {
    for (const http of open.splice(0)) await http.close();
  });
  return (apiHost, personalApiKey, options = {}) => {
    const http = createHttpClient({ connections: 2 });
    open.push(http);
    const target = { name: 'test', apiHost, projectId: options.projectId ?? '1', personalApiKey, ingestionHost: apiHost };
    const client = createManagementClient({ target, http, clock: testClock(), ...options });
    return { client, api: managementApi(client), http };
  };
}
