/**
 * Vitest globalSetup of the add-on test project: builds the add-on once for the whole run into
 * a temp folder and provides its path, instead of each of the many add-on test files running
 * esbuild on the same sources. Vitest runs this only when a test of that project is queued.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { PREBUILT_ADDON_KEY, runAddonBuild } from "./addon-build.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const parent = await mkdtemp(join(tmpdir(), "webbrain-addon-run-"));
  const remove = () => rm(parent, { recursive: true, force: true });
  const dir = join(parent, "addon");
  try {
    await runAddonBuild(dir);
  } catch (error) {
    await remove();
    throw error;
  }
  project.provide(PREBUILT_ADDON_KEY, dir);
  return remove;
}
