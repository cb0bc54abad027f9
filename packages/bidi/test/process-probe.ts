// Test-side checks that a Firefox process group and profile are really gone.
import { existsSync } from "node:fs";

/** True while any process of the group led by `pid` exists. */
export function processGroupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function pathExists(path: string): boolean {
  return existsSync(path);
}
