/**
 * Project resources under the prefix the instance answers. `/api/projects/:id/` is PostHog's
 * canonical prefix and is tried first; `/api/environments/:id/` is kept for older clients and
 * older instances. The first answer that is not "Endpoint not found." fixes the prefix for the
 * rest of the run; a resource missing under it is still tried under the other.
 */
import { isEndpointMissing, prefixOrder, projectPath, type ProjectPrefix } from './api-detection.js';
import { isNoAnswer, noAnswerError, type ApiCall, type ApiNoAnswer, type ApiReply, type ManagementClient } from './management-client.js';
import type { z } from 'zod';

/** A call to a project resource: `resource` is relative to the project (`exports/12/`; '' for the project itself). */
export interface ProjectCall extends Omit<ApiCall, 'path'> {
  resource: string;
}

export interface ProjectAnswer<R> {
  reply: R;
  /** The call as sent, with the path under the prefix that answered. */
  call: ApiCall;
}

function missing(reply: ApiReply | ApiNoAnswer): boolean {
  return !isNoAnswer(reply) && isEndpointMissing(reply.status, reply.body.toString('utf8'));
}

export class ProjectScope {
  private known: ProjectPrefix | undefined;

  constructor(private readonly client: ManagementClient) {}

  /** The prefix this instance answered on, once a project call has been answered. */
  get prefix(): ProjectPrefix | undefined {
    return this.known;
  }

  private toCall(prefix: ProjectPrefix, { resource, ...rest }: ProjectCall): ApiCall {
    return { ...rest, path: projectPath(prefix, this.client.target.projectId, resource) };
  }

  /** Sends under the known (else canonical) prefix, then under the other if the endpoint is missing; no answer is a value. */
  async trySend(projectCall: ProjectCall): Promise<ProjectAnswer<ApiReply | ApiNoAnswer>> {
    const [first, second] = prefixOrder(this.known);
    const call = this.toCall(first, projectCall);
    const reply = await this.client.trySend(call);
    if (!missing(reply)) {
      if (!isNoAnswer(reply)) this.known ??= first;
      return { reply, call };
    }
    const otherCall = this.toCall(second, projectCall);
    const other = await this.client.trySend(otherCall);
    if (isNoAnswer(other) || missing(other)) return { reply, call };
    this.known ??= second;
    return { reply: other, call: otherCall };
  }

  async send(projectCall: ProjectCall): Promise<ProjectAnswer<ApiReply>> {
    const { reply, call } = await this.trySend(projectCall);
    if (isNoAnswer(reply)) throw noAnswerError(reply);
    return { reply, call };
  }

  async json<S extends z.ZodType>(projectCall: ProjectCall, schema: S): Promise<z.infer<S>> {
    const { reply, call } = await this.send(projectCall);
    return this.client.parse(reply, call, schema);
  }

  async empty(projectCall: ProjectCall): Promise<void> {
    const { reply, call } = await this.send(projectCall);
    if (reply.status < 200 || reply.status >= 300) throw this.client.failure(reply, call);
  }
}
