/**
 * The add-on build itself: the other add-on tests install a copy of one build per run
 * (addon-build-setup.ts), so this file runs the build command as `npm run build` does and checks
 * what Firefox will load: every page's script, the page script, the static files, the manifest
 * with the package's version. No Firefox here; web-ext-lint.test.ts lints the same build.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runAddonBuild } from "./addon-build.js";

/** esbuild bundles pi-ai and pdf.js for six entries; on a loaded two-core machine, seconds. */
const BUILD_TIMEOUT_MS = 180_000;

const parent = await mkdtemp(join(tmpdir(), "webbrain-addon-build-test-"));
afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

describe("the add-on build", () => {
  it(
    "writes every entry, the page script and a manifest with the package's version, replacing an older build whole",
    async () => {
      const dir = join(parent, "addon");
      await runAddonBuild(dir);
      const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as {
        version: string;
      };
      const manifest = JSON.parse(await readFile(join(dir, "manifest.json"), "utf8")) as {
        version: string;
        manifest_version: number;
      };
      expect(manifest).toMatchObject({ version: pkg.version, manifest_version: 2 });
      for (const file of [
        "background.js",
        "sidebar.js",
        "settings.js",
        "content.js",
        "traces.js",
        "listener-hook.js",
        "page-script.js",
        "sidebar.html",
        "_locales/en/messages.json",
      ]) {
        expect((await stat(join(dir, file))).size, file).toBeGreaterThan(0);
      }
      // A second build replaces the folder as a whole: nothing of the first is left in it.
      const stray = join(dir, "left-from-an-older-build.js");
      await writeFile(stray, "old");
      await runAddonBuild(dir);
      expect(existsSync(stray)).toBe(false);
      expect(existsSync(join(dir, "manifest.json"))).toBe(true);
    },
    BUILD_TIMEOUT_MS,
  );
});
