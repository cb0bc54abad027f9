/**
 * Builds the unpacked add-on into dist/: esbuild bundles each page's entry (IIFE, browser
 * platform), the page script comes from @webbrain/page's buildPageScript(), and the static
 * files (manifest, HTML, CSS, icons) are copied with the manifest version taken from
 * package.json. The output directory is replaced as a whole (written to a temp folder, then
 * renamed) so a failed build never leaves a half-written add-on behind.
 *
 * pi-ai and the bundler: pi-ai bundles for the browser as it is, except that it lazily imports
 * every provider SDK it knows, and Mistral's imports the optional `@opentelemetry/api`, which
 * is not installed. The add-on offers OpenAI-compatible, OpenAI Responses, Azure, Anthropic and
 * Bedrock providers only, so the Google, Vertex, Mistral and Codex provider modules are replaced by a
 * stub that throws a clear error. That also keeps background.js under web-ext lint's 5 MB
 * parse limit (it is ~5.3 MB with them).
 */

import { cp, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import { EN_MESSAGES } from "../src/shared/ui-strings.js";

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
  traces: "src/traces/main.ts",
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
        `  throw new Error(${JSON.stringify(`pi-ai's ${args.path} provider is not part of the WebBrain add-on; use an OpenAI-compatible, OpenAI, Azure, Anthropic or Bedrock provider.`)});`,
        "};",
        ...OMITTED_PROVIDER_EXPORTS.map((name) => `export const ${name} = unavailable;`),
      ].join("\n"),
    }));
  },
};

/**
 * pi-ai's Bedrock client imports an HTTP/1 handler and a proxy agent only on Node (proxy env
 * variables, AWS_BEDROCK_FORCE_HTTP1); in a page the SDK uses fetch. Those Node modules are
 * replaced by classes that say so, should that branch ever run.
 */
const NODE_ONLY_BEDROCK_IMPORTS = /^(proxy-agent|@smithy\/node-http-handler)$/;

const omitNodeOnlyBedrockImports: Plugin = {
  name: "omit-node-only-bedrock-imports",
  setup(builder) {
    builder.onResolve({ filter: NODE_ONLY_BEDROCK_IMPORTS }, (args) =>
      /amazon-bedrock\.js$/.test(args.importer) ? { path: args.path, namespace: "node-only" } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "node-only" }, (args) => ({
      loader: "js",
      contents: [
        "class NodeOnly {",
        `  constructor() { throw new Error(${JSON.stringify(`${args.path} is Node-only and not part of the WebBrain add-on.`)}); }`,
        "}",
        "export const ProxyAgent = NodeOnly;",
        "export const NodeHttpHandler = NodeOnly;",
      ].join("\n"),
    }));
  },
};

/**
 * pi-ai reaches Node-only modules through `(specifier) => import(specifier)`: env-api-keys.js
 * (node:fs/os/path, only when `process.versions.node` is set) and register-builtins.js (the
 * Bedrock provider, only when no module was handed to setBedrockProviderModule, which the
 * background page always does). Neither path runs in the add-on, and an import of a computed
 * specifier is what `web-ext lint` flags as unsafe, so those helpers are built as a rejection
 * that says why. A pi-ai update that changes the line fails the build here, not silently.
 */
const PI_NODE_ONLY_IMPORTERS = /pi-ai[\\/]dist[\\/](env-api-keys|providers[\\/]register-builtins)\.js$/;
const COMPUTED_IMPORT = /\(specifier\) => import\(specifier\)/g;

const noComputedImportsInPiAi: Plugin = {
  name: "no-computed-imports-in-pi-ai",
  setup(builder) {
    builder.onLoad({ filter: PI_NODE_ONLY_IMPORTERS }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const found = source.match(COMPUTED_IMPORT)?.length ?? 0;
      if (found !== 1) {
        throw new Error(
          `${args.path}: expected one "(specifier) => import(specifier)", found ${found}; update scripts/build.ts for this pi-ai version`,
        );
      }
      const rejection = `(specifier) => Promise.reject(new Error(\`\${specifier} is Node-only and not part of the WebBrain add-on.\`))`;
      return { loader: "js", contents: source.replace(COMPUTED_IMPORT, rejection) };
    });
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

/** `_locales/en/messages.json` from the English catalog, the one source of the UI's strings. */
async function writeEnglishLocale(outDir: string): Promise<void> {
  const messages = Object.fromEntries(
    Object.entries(EN_MESSAGES).map(([key, message]) => [key, { message }]),
  );
  await mkdir(join(outDir, "_locales", "en"), { recursive: true });
  await writeFile(join(outDir, "_locales", "en", "messages.json"), `${JSON.stringify(messages, null, 2)}\n`);
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
      plugins: [omitUnusedProviders, omitNodeOnlyBedrockImports, noComputedImportsInPiAi],
      sourcemap: false,
      legalComments: "linked",
      logLevel: "warning",
      // pi-ai's Azure and Bedrock providers read process.env (unguarded) for fallbacks the add-on
      // never uses: an empty object keeps those reads harmless in a page.
      define: { "process.env.NODE_ENV": '"production"', "process.env": "{}" },
      // Packaged skills (skills/*.md) are bundled as text into the background page.
      loader: { ".md": "text" },
    });
    await writeFile(join(outDir, "page-script.js"), await loadPageScript());
    await cp(join(PACKAGE_DIR, "static"), outDir, { recursive: true });
    await writeEnglishLocale(outDir);
    // PDF.js runs its parser in a worker, loaded from the add-on (attachment-reader.ts).
    await cp(
      createRequire(import.meta.url).resolve("pdfjs-dist/build/pdf.worker.min.mjs"),
      join(outDir, "pdf.worker.min.mjs"),
    );
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
