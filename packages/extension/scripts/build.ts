/**
 * Builds the unpacked add-on into dist/: esbuild bundles each page's entry (IIFE, browser
 * platform), the page script comes from @webbrain/page's buildPageScript(), and the static
 * files (manifest, HTML, CSS, icons) are copied with the manifest version taken from
 * package.json. The output directory is replaced as a whole (written to a temp folder, then
 * renamed) so a failed build never leaves a half-written add-on behind.
 *
 * pi-ai and the bundler: pi-ai lazily imports every provider SDK; only Mistral's imports the
 * optional `@opentelemetry/api`, which is not installed. It stays external: the Mistral chunk
 * is never loaded (no Mistral provider is offered), everything else is bundled.
 */
import { cp, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST_DIR = join(PACKAGE_DIR, "dist");

const ENTRIES = {
  background: "src/background/main.ts",
  sidebar: "src/sidebar/main.ts",
  settings: "src/settings/main.ts",
  content: "src/content/glue.ts",
} as const;

/** Optional imports of SDKs we never load (see header). */
const UNUSED_OPTIONAL_IMPORTS = ["@opentelemetry/api"];

async function loadPageScript(): Promise<string> {
  const page: Record<string, unknown> = await import("@webbrain/page");
  const buildPageScript = page.buildPageScript;
  if (typeof buildPageScript !== "function") {
    throw new Error(
      "@webbrain/page does not export buildPageScript() yet; the add-on cannot be built without the page script",
    );
  }
  const script: unknown = await buildPageScript();
  if (typeof script !== "string" || script.length === 0) {
    throw new Error("@webbrain/page buildPageScript() returned no script text");
  }
  return script;
}

async function main(): Promise<void> {
  const started = Date.now();
  const outDir = `${DIST_DIR}.tmp-${process.pid}`;
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  try {
    await build({
      absWorkingDir: PACKAGE_DIR,
      entryPoints: ENTRIES,
      outdir: outDir,
      bundle: true,
      format: "iife",
      platform: "browser",
      target: ["firefox128"],
      external: UNUSED_OPTIONAL_IMPORTS,
      sourcemap: "linked",
      legalComments: "linked",
      logLevel: "warning",
      define: { "process.env.NODE_ENV": '"production"' },
    });
    await writeFile(join(outDir, "page-script.js"), await loadPageScript());
    await cp(join(PACKAGE_DIR, "static"), outDir, { recursive: true });
    const pkg = JSON.parse(await readFile(join(PACKAGE_DIR, "package.json"), "utf8")) as { version: string };
    const manifestPath = join(outDir, "manifest.json");
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { version: string };
    manifest.version = pkg.version;
    await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    await rm(DIST_DIR, { recursive: true, force: true });
    await rename(outDir, DIST_DIR);
  } catch (error) {
    await rm(outDir, { recursive: true, force: true });
    throw error;
  }
  console.log(`add-on built in ${Date.now() - started} ms: ${DIST_DIR}`);
}

main().catch((error: unknown) => {
  console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
