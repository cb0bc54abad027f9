/**
 * Builds the published packages to JavaScript with type declarations and packs them as npm
 * tarballs that install on a machine that has never seen this repository:
 *
 *   npm run pack:packages -- --out DIR    (default DIR: .artifacts/packs)
 *   npm install -g DIR/webbrain-protocol-0.1.0.tgz DIR/webbrain-bidi-0.1.0.tgz DIR/webbrain-page-0.1.0.tgz \
 *     DIR/webbrain-agent-0.1.0.tgz DIR/webbrain-runner-0.1.0.tgz
 *
 * Why a staging folder: in the workspace every package.json points at its TypeScript sources
 * (tsx and vitest run them directly, no build step). The published manifest is derived from it
 * here: exports and bins point at dist/, workspace dependencies become exact versions, dev-only
 * fields go. The workspace files are never modified, so the dev flow cannot be broken by a
 * half-finished pack.
 *
 * Invariants:
 * - Packages build in dependency order (protocol, bidi, page, agent, runner); each build resolves its
 *   workspace imports to the built declarations of the ones before (tsconfig.build.json paths).
 * - A type error fails the pack: nothing half-typed is published.
 * - The page layer's script is built here once and shipped as a string (dist/bundle.js), so the
 *   installed runner needs no esbuild.
 * - pi-firefox-bidi stays TypeScript (Pi loads it through jiti) and bundles the built
 *   @webbrain/bidi, because Pi installs a package with its own module root.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
/** tsc and npm on a two-core machine under load take a while; never forever. */
const STEP_TIMEOUT_MS = 300_000;

interface PackageJson {
  name: string;
  version: string;
  description?: string;
  type?: string;
  exports?: Record<string, unknown>;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  keywords?: string[];
  pi?: unknown;
  [key: string]: unknown;
}

interface BuiltPackage {
  dir: string;
  /** Entry scripts for the bin names, written into the staged package's bin/. */
  bins: Record<string, string>;
}

/** Bin shims of the published packages: plain ESM over dist/, no tsx. */
const RUNNER_BIN = `#!/usr/bin/env node
// The \`webbrain\` bin of the published package: the built CLI.
import "../dist/cli/webbrain.js";
`;
const BIDI_BIN = `#!/usr/bin/env node
// The \`webbrain-bidi\` bin of the published package: the built CLI.
import { runCli } from "../dist/cli.js";

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
});
`;

const BUILT: readonly BuiltPackage[] = [
  { dir: "packages/protocol", bins: {} },
  { dir: "packages/bidi", bins: { "webbrain-bidi": BIDI_BIN } },
  { dir: "packages/page", bins: {} },
  { dir: "packages/agent", bins: {} },
  { dir: "packages/runner", bins: { webbrain: RUNNER_BIN } },
];

/** Workspace-only dependencies: the bins above replace the tsx shims. */
const DEV_ONLY_DEPENDENCIES = new Set(["tsx"]);

export interface PackResult {
  /** Tarball paths by package name. */
  tarballs: Record<string, string>;
}

/** The Node versions every published package supports: the workspace root's `engines`, once. */
async function supportedEngines(): Promise<Record<string, string>> {
  const root = await readManifest(".");
  const engines = root.engines as Record<string, string> | undefined;
  if (!engines?.node) throw new Error("the root package.json has no engines.node to publish");
  return engines;
}

async function readManifest(dir: string): Promise<PackageJson> {
  return JSON.parse(await readFile(join(ROOT, dir, "package.json"), "utf8")) as PackageJson;
}

/** Workspace imports, resolved to built declarations under `distRoot` (see tsconfig.build.json). */
function builtPaths(distRoot: string): Record<string, string[]> {
  return {
    "@webbrain/protocol": [join(distRoot, "protocol", "index.d.ts")],
    "@webbrain/bidi": [join(distRoot, "bidi", "index.d.ts")],
    "@webbrain/page": [join(distRoot, "page", "index.d.ts")],
    "@webbrain/page/protocol": [join(distRoot, "page", "protocol.d.ts")],
    "@webbrain/page/bundle": [join(distRoot, "page", "bundle.d.ts")],
    "@webbrain/agent": [join(distRoot, "agent", "index.d.ts")],
  };
}

/**
 * Compiles one package into `outDir`. The package's tsconfig.build.json is extended with the
 * output folders of this pack, so packing never writes into the workspace.
 */
async function tsc(dir: string, outDir: string, distRoot: string): Promise<void> {
  const project = join(distRoot, `tsconfig.${dir.split("/").pop()}.json`);
  const config = {
    extends: join(ROOT, dir, "tsconfig.build.json"),
    // Type roots are looked up beside the config by default; this config lives in the pack folder.
    compilerOptions: {
      outDir,
      paths: builtPaths(distRoot),
      typeRoots: [join(ROOT, "node_modules", "@types")],
    },
  };
  await writeFile(project, JSON.stringify(config, null, 2));
  try {
    await run(process.execPath, [TSC, "-p", project], { cwd: ROOT, timeout: STEP_TIMEOUT_MS });
  } catch (error) {
    const out = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`tsc -p ${project} failed:\n${out.stdout ?? ""}${out.stderr ?? out.message}`);
  }
}

/** The page layer's bundle module as shipped: the script prebuilt, the same exports. */
async function writePageBundle(distDir: string): Promise<void> {
  const bundle = (await import(join(ROOT, "packages/page/src/bundle.ts"))) as Record<string, unknown>;
  const js: string[] = ["// Generated by scripts/pack-packages.ts: the page layer, prebuilt."];
  const dts: string[] = ["// Generated by scripts/pack-packages.ts."];
  for (const [name, value] of Object.entries(bundle)) {
    if (typeof value === "function" && /^build\w*Script$/.test(name)) {
      const script = await (value as () => Promise<string>)();
      js.push(`export function ${name}() { return Promise.resolve(${JSON.stringify(script)}); }`);
      dts.push(`export declare function ${name}(): Promise<string>;`);
    } else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      js.push(`export const ${name} = ${JSON.stringify(value)};`);
      dts.push(`export declare const ${name}: ${typeof value};`);
    } else {
      throw new Error(
        `pack: @webbrain/page/bundle exports ${name} (${typeof value}), which the prebuilt bundle cannot carry; teach scripts/pack-packages.ts about it.`,
      );
    }
  }
  await writeFile(join(distDir, "bundle.js"), `${js.join("\n")}\n`);
  await writeFile(join(distDir, "bundle.d.ts"), `${dts.join("\n")}\n`);
}

/**
 * Folders shipped as they are, exported by path (`"./skills/*": "./skills/*"`: the packaged
 * skills' Markdown, which the runner reads by name and the add-on bundles as text).
 */
const ASSET_EXPORT = /^\.\/(skills)\/\*$/;

/** `./src/x.ts` -> `{types: ./dist/x.d.ts, default: ./dist/x.js}`; asset folders as they are. */
function builtExports(
  exports: Record<string, unknown>,
): Record<string, { types: string; default: string } | string> {
  const out: Record<string, { types: string; default: string } | string> = {};
  for (const [key, target] of Object.entries(exports)) {
    if (typeof target === "string" && ASSET_EXPORT.test(target)) {
      out[key] = target;
      continue;
    }
    if (typeof target !== "string" || !/^\.\/src\/.*\.ts$/.test(target)) {
      throw new Error(
        `pack: export "${key}" is ${JSON.stringify(target)}; the workspace manifest must map it to ./src/*.ts.`,
      );
    }
    const base = target.replace(/^\.\/src\//, "./dist/").replace(/\.ts$/, "");
    out[key] = { types: `${base}.d.ts`, default: `${base}.js` };
  }
  return out;
}

function publishedDependencies(
  deps: Record<string, string> | undefined,
  versions: ReadonlyMap<string, string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, range] of Object.entries(deps ?? {})) {
    if (DEV_ONLY_DEPENDENCIES.has(name)) continue;
    out[name] = versions.get(name) ?? range;
  }
  return out;
}

async function npmPack(stageDir: string, outDir: string): Promise<string> {
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", outDir], {
    cwd: stageDir,
    timeout: STEP_TIMEOUT_MS,
  });
  const [info] = JSON.parse(stdout) as { filename: string }[];
  if (!info) throw new Error(`npm pack in ${stageDir} reported no tarball`);
  return join(outDir, info.filename);
}

export async function packPackages(outDir: string): Promise<PackResult> {
  const out = resolve(outDir);
  const stageRoot = join(out, "stage");
  // Inside the repository (ignored), so the built declarations resolve their third-party types
  // (ws, webdriver-bidi-protocol) from its node_modules; one folder per pack, removed after.
  const distRoot = join(ROOT, ".artifacts", `build-${process.pid}-${Date.now()}`);
  for (const dir of [stageRoot, distRoot]) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
  }
  try {
    return await buildAndPack(out, stageRoot, distRoot);
  } finally {
    await rm(distRoot, { recursive: true, force: true });
  }
}

async function buildAndPack(out: string, stageRoot: string, distRoot: string): Promise<PackResult> {
  const manifests = new Map<string, PackageJson>();
  for (const pkg of BUILT) manifests.set(pkg.dir, await readManifest(pkg.dir));
  const versions = new Map([...manifests.values()].map((m) => [m.name, m.version]));
  const engines = await supportedEngines();
  const tarballs: Record<string, string> = {};

  for (const pkg of BUILT) {
    const manifest = manifests.get(pkg.dir)!;
    const distDir = join(distRoot, pkg.dir.split("/").pop()!);
    await tsc(pkg.dir, distDir, distRoot);
    if (pkg.dir === "packages/page") await writePageBundle(distDir);

    const stage = join(stageRoot, manifest.name.replace(/^@/, "").replace("/", "-"));
    await mkdir(stage, { recursive: true });
    await cp(distDir, join(stage, "dist"), { recursive: true });
    await cp(join(ROOT, pkg.dir, "README.md"), join(stage, "README.md"));
    for (const target of Object.values(manifest.exports ?? {})) {
      const folder = typeof target === "string" ? ASSET_EXPORT.exec(target)?.[1] : undefined;
      if (folder) await cp(join(ROOT, pkg.dir, folder), join(stage, folder), { recursive: true });
    }
    const bin: Record<string, string> = {};
    for (const [name, source] of Object.entries(pkg.bins)) {
      await mkdir(join(stage, "bin"), { recursive: true });
      await writeFile(join(stage, "bin", `${name}.js`), source, { mode: 0o755 });
      bin[name] = `bin/${name}.js`;
    }
    const published: PackageJson = {
      name: manifest.name,
      version: manifest.version,
      ...(manifest.description ? { description: manifest.description } : {}),
      type: "module",
      engines,
      license: "MIT",
      ...(manifest.exports ? { exports: builtExports(manifest.exports) } : {}),
      ...(Object.keys(bin).length ? { bin } : {}),
      dependencies: publishedDependencies(manifest.dependencies, versions),
    };
    await writeFile(join(stage, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
    tarballs[manifest.name] = await npmPack(stage, out);
  }

  tarballs["pi-firefox-bidi"] = await packPiPackage(
    stageRoot,
    out,
    versions,
    engines,
    tarballs["@webbrain/bidi"]!,
  );
  return { tarballs };
}

/**
 * The Pi package: its TypeScript as is (Pi loads it with jiti), with the built @webbrain/bidi
 * bundled inside (installed into the stage from its tarball), since Pi gives each package its
 * own module root and @webbrain/bidi is not on a registry.
 */
async function packPiPackage(
  stageRoot: string,
  out: string,
  versions: ReadonlyMap<string, string>,
  engines: Record<string, string>,
  bidiTarball: string,
): Promise<string> {
  const dir = "packages/pi-firefox-bidi";
  const manifest = await readManifest(dir);
  const stage = join(stageRoot, "pi-firefox-bidi");
  await mkdir(stage, { recursive: true });
  for (const entry of ["index.ts", "src", "skills", "README.md"]) {
    await cp(join(ROOT, dir, entry), join(stage, entry), { recursive: true });
  }
  const published: PackageJson = {
    name: manifest.name,
    version: manifest.version,
    ...(manifest.description ? { description: manifest.description } : {}),
    type: "module",
    engines,
    license: "MIT",
    ...(manifest.keywords ? { keywords: manifest.keywords } : {}),
    ...(manifest.exports ? { exports: manifest.exports } : {}),
    pi: manifest.pi,
    dependencies: publishedDependencies(manifest.dependencies, versions),
    bundleDependencies: ["@webbrain/bidi"],
    ...(manifest.peerDependencies ? { peerDependencies: manifest.peerDependencies } : {}),
  };
  await writeFile(join(stage, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
  await run(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--omit=peer",
      "--no-package-lock",
      bidiTarball,
    ],
    { cwd: stage, timeout: STEP_TIMEOUT_MS },
  );
  // npm install rewrites the dependency as a file: spec; the published one names the version.
  await writeFile(join(stage, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
  return npmPack(stage, out);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const flag = process.argv.indexOf("--out");
  const outDir = flag === -1 ? join(ROOT, ".artifacts", "packs") : process.argv[flag + 1];
  if (!outDir) {
    console.error("pack-packages: --out needs a folder.");
    process.exit(2);
  }
  const { tarballs } = await packPackages(outDir);
  for (const [name, path] of Object.entries(tarballs)) console.log(`${name}: ${path}`);
}
