// Test-side checks that a Firefox process group and profile are really gone.
import { existsSync } from "node:fs";

/** True while any process of the group led by `pid` runs (a zombie waiting to be reaped does not). */
export { processGroupRuns as processGroupAlive } from "../src/process-state.js";

export function pathExists(path: string): boolean {
  return existsSync(path);
}
