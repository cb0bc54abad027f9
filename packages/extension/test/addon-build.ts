/**
 * The add-on build as the tests run it: `scripts/build.ts --out DIR` through tsx, the same
 * command `npm run build` runs. A vitest globalSetup (addon-build-setup.ts) builds it once per
 * run; `buildAddon()` in addon-harness.ts copies that build for each test file, and builds on
 * its own when a file runs outside that setup.
 */
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const TSX = join(PACKAGE_DIR, "..", "..", "node_modules", ".bin", "tsx");

/** The key under which the globalSetup provides the prebuilt add-on's folder. */
export const PREBUILT_ADDON_KEY = "webbrainPrebuiltAddonDir";

declare module "vitest" {
  export interface ProvidedContext {
    /** The unpacked add-on built once for this run (absent outside the add-on test project). */
    [PREBUILT_ADDON_KEY]?: string;
  }
}

/** Builds the unpacked add-on into `dir` (replaced as a whole); rejects with the build's output. */
export async function runAddonBuild(dir: string): Promise<void> {
  await promisify(execFile)(TSX, [join(PACKAGE_DIR, "scripts", "build.ts"), "--out", dir], {
    cwd: PACKAGE_DIR,
  });
}
