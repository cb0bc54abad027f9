// Test-side checks that a Firefox process group and profile are really gone.
import { existsSync } from "node:fs";

/** True while any process of the group led by `pid` exists. */
export { processGroupExists as processGroupAlive } from "../src/firefox-process.js";

export function pathExists(path: string): boolean {
  return existsSync(path);
}
