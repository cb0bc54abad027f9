/**
 * Node side: builds the page layer into one IIFE script string with esbuild. The script installs
 * `globalThis.__webbrainPage = { handle, version }` idempotently; it imports nothing at run time.
 * Injected by the runner (BiDi sandbox realm) and by the add-on (content script).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PAGE_CALL_SCHEMAS } from "@webbrain/protocol";
import { build, version as esbuildVersion, type Plugin } from "esbuild";

/** Browsers the script must run in: the Firefox ESR this project targets. */
const TARGET = "firefox128";
const ENTRY = fileURLToPath(new URL("./install.ts", import.meta.url));
/** The runner's second bundle: the page call door, closed-root probe, roots shim, element tools. */
const RUNNER_REALM_ENTRY = fileURLToPath(new URL("./runner-realm/install-runner-realm.ts", import.meta.url));

/** The module the bundle fills with the params schemas as JSON (call-schemas.ts). */
const CALL_SCHEMAS_MODULE = /[\\/]src[\\/]call-schemas\.ts$/;

/**
 * Puts the page actions' params schemas into the bundle as data. Built with typebox, they would
 * bring its builders along (about 150 KB, a parse on every page the script is injected into);
 * as JSON they are a few KB. Descriptions are for the model, so they are left out.
 */
const CALL_SCHEMAS_SOURCE = `export const CALL_SCHEMAS = ${JSON.stringify(
  PAGE_CALL_SCHEMAS,
  (key, value: unknown) => (key === "description" && typeof value === "string" ? undefined : value),
)};`;

const callSchemasAsJson: Plugin = {
  name: "call-schemas-as-json",
  setup(bundler) {
    bundler.onLoad({ filter: CALL_SCHEMAS_MODULE }, () => ({ contents: CALL_SCHEMAS_SOURCE, loader: "js" }));
  },
};

let cached: Promise<string> | undefined;
let cachedRunnerRealm: Promise<string> | undefined;

/** The whole page layer as one script. Built once per process. */
export function buildPageScript(): Promise<string> {
  cached ??= buildOnce(ENTRY, "the page layer");
  return cached;
}

/**
 * The runner's sandbox code that runs before the page layer (runner-realm/): install it first,
 * then the page layer, in the same realm. Built once per process.
 */
export function buildRunnerRealmScript(): Promise<string> {
  cachedRunnerRealm ??= buildOnce(RUNNER_REALM_ENTRY, "the runner realm");
  return cachedRunnerRealm;
}

/**
 * Test seam: with this variable naming a folder, a built script is kept there with a SHA-256 of
 * every file esbuild read for it, and a later process reuses it while none of them has changed.
 * The repository's test run sets it (vitest.config.ts): its `webbrain` processes and page test
 * files would otherwise each run esbuild on the same sources, about 150 builds a run. Unset, as
 * for users, every process builds its own.
 */
export const PAGE_SCRIPT_CACHE_ENV = "WEBBRAIN_PAGE_SCRIPT_CACHE";

async function buildOnce(entry: string, what: string): Promise<string> {
  const cacheDir = process.env[PAGE_SCRIPT_CACHE_ENV];
  // The output names its sources relative to the working folder, so that is part of the key; so
  // are the params schemas, which the plugin writes from the contracts and esbuild never reads
  // as a file (a changed contract must not reuse a script built with the old one).
  const key = `${entry}\0${process.cwd()}\0${esbuildVersion}\0${sha256(CALL_SCHEMAS_SOURCE)}`;
  const cacheFile = cacheDir ? join(cacheDir, `${sha256(key).slice(0, 24)}.json`) : undefined;
  const cached = cacheFile ? await readCachedScript(cacheFile) : undefined;
  if (cached !== undefined) return cached;
  const startedAt = Date.now();
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: TARGET,
    write: false,
    minify: false,
    legalComments: "none",
    logLevel: "silent",
    plugins: [callSchemasAsJson],
    metafile: cacheFile !== undefined,
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error(`bundle: esbuild produced no output for ${what}`);
  if (cacheFile && result.metafile) {
    const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(input));
    await writeCachedScript(cacheFile, file.text, inputs, startedAt).catch(() => undefined);
  }
  return file.text;
}

interface CachedScript {
  /** SHA-256 of each file the build read, by absolute path. */
  inputs: Record<string, string>;
  script: string;
}

function sha256(text: string | Buffer): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The cached script when every input still has the content it was built from. */
async function readCachedScript(cacheFile: string): Promise<string | undefined> {
  try {
    const cached = JSON.parse(await readFile(cacheFile, "utf8")) as CachedScript;
    for (const [path, hash] of Object.entries(cached.inputs)) {
      if (sha256(await readFile(path)) !== hash) return undefined;
    }
    return typeof cached.script === "string" ? cached.script : undefined;
  } catch {
    return undefined; // none yet, or unreadable: build
  }
}

/** Keeps the script unless an input changed while it was built; written whole, then renamed. */
async function writeCachedScript(
  cacheFile: string,
  script: string,
  paths: string[],
  startedAt: number,
): Promise<void> {
  const inputs: Record<string, string> = {};
  for (const path of paths) {
    if ((await stat(path)).mtimeMs >= startedAt) return;
    inputs[path] = sha256(await readFile(path));
  }
  await mkdir(dirname(cacheFile), { recursive: true, mode: 0o700 });
  const partial = `${cacheFile}.${process.pid}.tmp`;
  await writeFile(partial, JSON.stringify({ inputs, script } satisfies CachedScript));
  await rename(partial, cacheFile);
}

/** A function declaration for BiDi `script.callFunction`: calls handle in the realm. */
export const CALL_HANDLE_FUNCTION = "(action, params) => globalThis.__webbrainPage.handle(action, params)";
