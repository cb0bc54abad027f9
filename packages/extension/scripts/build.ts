/**
 * Builds the unpacked add-on into dist/: esbuild bundles each page's entry (IIFE, browser
 * platform), the page script comes from @webbrain/page's buildPageScript(), and the static
 * files (manifest, HTML, CSS, icons) are copied with the manifest version taken from
 * package.json. The output directory is replaced as a whole (written to a temp folder, then
 * renamed) so a failed build never leaves a half-written add-on behind.
 *
 * pi-ai and the bundler: pi-ai bundles for the browser as it is, except that it lazily imports
 * every provider SDK it knows, and Mistral's imports the optional `@opentelemetry/api`, which
 * is not installed. The add-on offers OpenAI-compatible, OpenAI Responses, Azure and Anthropic
 * providers only, so the Google, Vertex, Mistral and Codex provider modules are replaced by a
 * stub that throws a clear error. That also keeps background.js under web-ext lint's 5 MB
 * parse limit (it is ~5.3 MB with them).
 */
import { cp, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
/** `--out <dir>` builds elsewhere (tests build into a temp folder); default dist/. */
function outputDir(): string {
  const flag = process.argv.indexOf("--out");
  const value = flag >= 0 ? process.argv[flag + 1] : undefined;
  if (flag >= 0 && !value) throw new Error("--out needs a directory");
  return resolve(value ?? join(PACKAGE_DIR, "dist"));
}

const ENTRIES = {
  background: "src/background/main.ts",
  sidebar: "src/sidebar/main.ts",
  settings: "src/settings/main.ts",
  content: "src/content/glue.ts",
  "listener-hook": "src/listener-hook/main.ts",
} as const;

/** pi-ai provider modules the add-on never loads (see header). */
const OMITTED_PI_PROVIDERS = /^\.\/(google|google-vertex|mistral|openai-codex-responses)\.js$/;
const OMITTED_PROVIDER_EXPORTS = [
  "streamGoogle",
  "streamSimpleGoogle",
  "streamGoogleVertex",
  "streamSimpleGoogleVertex",
  "streamMistral",
  "streamSimpleMistral",
  "streamOpenAICodexResponses",
  "streamSimpleOpenAICodexResponses",
];

const omitUnusedProviders: Plugin = {
  name: "omit-unused-pi-providers",
  setup(builder) {
    builder.onResolve({ filter: OMITTED_PI_PROVIDERS }, (args) =>
      /pi-ai[\\/]dist[\\/]providers/.test(args.importer)
        ? { path: args.path, namespace: "omitted-provider" }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "omitted-provider" }, (args) => ({
      loader: "js",
      contents: [
        "const unavailable = () => {",
        `  throw new Error(${JSON.stringify(`pi-ai's ${args.path} provider is not part of the WebBrain add-on; use an OpenAI-compatible, OpenAI, Azure or Anthropic provider.`)});`,
        "};",
        ...OMITTED_PROVIDER_EXPORTS.map((name) => `export const ${name} = unavailable;`),
      ].join("\n"),
    }));
  },
};

async function loadPageScript(): Promise<string> {
  const page: Record<string, unknown> = await import("@webbrain/page/bundle");
  const buildPageScript = page.buildPageScript;
  if (typeof buildPageScript !== "function") {
    throw new Error(
      "@webbrain/page/bundle does not export buildPageScript(); the add-on cannot be built without the page script",
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
  const distDir = outputDir();
  const outDir = `${distDir}.tmp-${process.pid}`;
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
      target: ["firefox140"],
      plugins: [omitUnusedProviders],
      sourcemap: false,
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
    await rm(distDir, { recursive: true, force: true });
    await rename(outDir, distDir);
  } catch (error) {
    await rm(outDir, { recursive: true, force: true });
    throw error;
  }
  console.log(`add-on built in ${Date.now() - started} ms: ${distDir}`);
}

main().catch((error: unknown) => {
  console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
