/** What each members API offers `migrate members`: the same five operations, on normalized members. */
import type { ProjectLevel } from './member-levels.js';
import type { MembersApi, ProjectMember } from './project-member.js';

export interface MemberList {
  members: ProjectMember[];
  /** What the list could not include, and why (said on stderr). */
  notes: string[];
}

export interface MembersBackend {
  readonly api: MembersApi;
  list(): Promise<MemberList>;
  get(userUuid: string): Promise<ProjectMember>;
  add(userUuid: string, level: ProjectLevel): Promise<ProjectMember>;
  update(userUuid: string, level: ProjectLevel): Promise<ProjectMember>;
  remove(userUuid: string): Promise<void>;
}
