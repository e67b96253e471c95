/** Which API an instance has, read from its answers: "Endpoint not found." against "Not found.", and the prefix order. */
import { describe, expect, it } from 'vitest';
import { isEndpointMissing, prefixOrder, projectPath } from '../../src/management/api-detection.js';

const body = (detail: string) => JSON.stringify({ type: 'invalid_request', code: 'not_found', detail, attr: null });

describe('isEndpointMissing', () => {
  it.each([
    ['a retired or unrouted endpoint', 404, body('Endpoint not found.'), true],
    ['a 404 page from a proxy', 404, '<html><body>404</body></html>', true],
    ['an empty 404', 404, '', true],
    ['an object that does not exist', 404, body('Not found.'), false],
    ['a project that does not exist', 404, body('Project not found.'), false],
    [
      'a missing scope: the endpoint exists',
      403,
      JSON.stringify({ type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'project:read'", attr: null }),
      false,
    ],
    ['a bad key: the endpoint exists', 401, body('Endpoint not found.'), false],
    ['an answer', 200, '[]', false],
    ['a method the endpoint does not take', 405, '{"detail":"Method \\"PUT\\" not allowed."}', false],
  ])('%s', (_name, status, text, expected) => expect(isEndpointMissing(status, text)).toBe(expected));
});

describe('prefixOrder', () => {
  it.each([
    [undefined, ['projects', 'environments']],
    ['projects', ['projects', 'environments']],
    ['environments', ['environments', 'projects']],
  ] as const)('known %j -> %j', (known, expected) => expect(prefixOrder(known)).toEqual(expected));
});

describe('projectPath', () => {
  it.each([
    ['projects', '12', 'exports/3/', '/api/projects/12/exports/3/'],
    ['environments', '12', 'groups/find/', '/api/environments/12/groups/find/'],
    ['projects', '12', '', '/api/projects/12/'],
    ['projects', '12', '/users_with_access/', '/api/projects/12/users_with_access/'],
  ] as const)('%s %s %s', (prefix, id, resource, expected) => expect(projectPath(prefix, id, resource)).toBe(expected));
});
