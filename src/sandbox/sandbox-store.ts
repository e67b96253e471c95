/**
 * The sandbox's store. Opened once per server; modules of src/sandbox add their own queries
 * on `db`. `:memory:` is allowed for a throwaway server.
 */
import { migrate, openDatabase, type Database } from '../sqlite/database.js';
import { seedProjects } from './sandbox-projects.js';
import { SANDBOX_MIGRATIONS } from './sandbox-schema.js';
import { registerArgMax } from './api/query/hogql-argmax.js';

export class SandboxStore {
  private constructor(readonly db: Database) {}

  static open(path: string): SandboxStore {
    const db = openDatabase(path);
    migrate(db, SANDBOX_MIGRATIONS);
    seedProjects(db);
    registerArgMax(db);
    return new SandboxStore(db);
  }

  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
