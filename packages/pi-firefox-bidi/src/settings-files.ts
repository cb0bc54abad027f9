/**
 * Reading the two settings files Pi 0.73.1 uses, so that a missing file, an
 * unreadable or broken one, and a parsed one stay distinguishable (Pi has no
 * settings API for extensions, and its own loader hides those differences).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { SettingsFile } from "./settings.js";

export async function readSettingsFile(path: string): Promise<SettingsFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing", path };
    return { kind: "unreadable", path, problem: `cannot read the file (${(error as Error).message})` };
  }
  try {
    return { kind: "parsed", path, data: JSON.parse(text) as unknown };
  } catch (error) {
    return { kind: "unreadable", path, problem: `the file is not valid JSON (${(error as Error).message})` };
  }
}

/** `~/.pi/agent/settings.json`, or under PI_CODING_AGENT_DIR. */
export function userSettingsPath(agentDir: string): string {
  return join(agentDir, "settings.json");
}

/** `<cwd>/.pi/settings.json`. */
export function projectSettingsPath(cwd: string): string {
  return join(cwd, ".pi", "settings.json");
}
