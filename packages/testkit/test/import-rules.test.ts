/**
 * Who may import whom (DESIGN.md "Packages, and who may import whom"), in the spirit of
 * Playwright's DEPS.list: each package's `@webbrain/*` imports must be named in its package.json
 * (sources: dependencies and peerDependencies; tests, benches and scripts: devDependencies too),
 * what package.json names must be an arrow the design allows, and no source reaches into
 * another package's folder by a relative path.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const PACKAGES_DIR = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const WORKSPACE_SCRIPTS = join(PACKAGES_DIR, "..", "scripts") + sep;

/** The arrows DESIGN.md draws, by folder name; tests may use testkit besides. */
const DESIGN_ARROWS: Record<string, readonly string[]> = {
  protocol: [],
  bidi: [],
  page: ["protocol"],
  agent: ["protocol"],
  runner: ["agent", "bidi", "page", "protocol"],
  extension: ["agent", "page", "protocol"],
  testkit: ["protocol", "bidi"],
  "pi-firefox-bidi": ["bidi"],
};

/** Folders whose files are the package's product, held to `dependencies`. */
const SOURCE_FOLDERS = ["src", "bin"];
/** Folders that may also use devDependencies. */
const DEV_FOLDERS = ["test", "bench", "__bench__", "scripts"];

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const OUR_NAMES = new Map<string, string>(); // package name -> folder
for (const folder of readdirSync(PACKAGES_DIR)) {
  const manifestPath = join(PACKAGES_DIR, folder, "package.json");
  try {
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Manifest;
    OUR_NAMES.set(manifest.name, folder);
  } catch {
    // Not a package folder.
  }
}

function manifestOf(folder: string): Manifest {
  return JSON.parse(readFileSync(join(PACKAGES_DIR, folder, "package.json"), "utf8")) as Manifest;
}

function ourDependencies(deps: Record<string, string> | undefined): string[] {
  return Object.keys(deps ?? {})
    .map((name) => OUR_NAMES.get(name))
    .filter((folder): folder is string => folder !== undefined);
}

function filesUnder(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    if (entry === "node_modules" || entry === "dist" || entry.startsWith(".")) return [];
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.(m?[jt]sx?)$/.test(entry) && !entry.endsWith(".d.ts") ? [path] : [];
  });
}

const IMPORT_SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s[^'"`]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;

export function importsOf(source: string): string[] {
  return [...source.matchAll(IMPORT_SPECIFIER)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
}

/** The folder of ours an import names, by package name or by a relative path out of `from`. */
function targetFolder(specifier: string, from: string, ownFolder: string): string | undefined {
  if (specifier.startsWith(".")) {
    const absolute = resolve(dirname(from), specifier);
    // The workspace's own tooling (scripts/: the supported-Node shim, the packer) is not a
    // package: the workspace bins and tests may use it; published bins are generated without it.
    if (absolute.startsWith(WORKSPACE_SCRIPTS) && !from.includes(`${sep}src${sep}`)) return undefined;
    const target = relative(PACKAGES_DIR, absolute);
    if (target.startsWith("..")) return "(outside packages/)";
    const folder = target.split(sep)[0];
    return folder === ownFolder ? undefined : folder;
  }
  const name = specifier.startsWith("@")
    ? specifier.split("/").slice(0, 2).join("/")
    : specifier.split("/")[0]!;
  return OUR_NAMES.get(name);
}

describe("import rules", () => {
  it("the import scanner sees every form of import", () => {
    const source = [
      'import { a } from "@scope/one";',
      'import type { B } from "../x.js";',
      'export * from "./y.js";',
      'const c = await import("two/sub");',
      'import "side-effect";',
    ].join("\n");
    expect(importsOf(source)).toEqual(["@scope/one", "../x.js", "./y.js", "two/sub", "side-effect"]);
  });

  it("every package DESIGN.md draws exists, and every package has its arrows", () => {
    const folders = new Set(OUR_NAMES.values());
    expect(Object.keys(DESIGN_ARROWS).filter((folder) => !folders.has(folder))).toEqual([]);
    expect([...folders].filter((folder) => !(folder in DESIGN_ARROWS))).toEqual([]);
  });

  for (const folder of [...OUR_NAMES.values()].sort()) {
    it(`${folder}: package.json names only the arrows DESIGN.md draws`, () => {
      const manifest = manifestOf(folder);
      const allowed = new Set([...(DESIGN_ARROWS[folder] ?? []), folder]);
      const product = [
        ...ourDependencies(manifest.dependencies),
        ...ourDependencies(manifest.peerDependencies),
      ];
      expect(
        product.filter((dep) => !allowed.has(dep)),
        `${folder} depends on what the design forbids`,
      ).toEqual([]);
      const dev = ourDependencies(manifest.devDependencies).filter((dep) => !allowed.has(dep));
      // Tests may use testkit, and drive Firefox through bidi; nothing else of ours.
      expect(dev.filter((dep) => dep !== "testkit" && dep !== "bidi")).toEqual([]);
    });

    it(`${folder}: every import of ours is named in package.json`, () => {
      const manifest = manifestOf(folder);
      const productDeps = new Set([
        ...ourDependencies(manifest.dependencies),
        ...ourDependencies(manifest.peerDependencies),
      ]);
      const devDeps = new Set([...productDeps, ...ourDependencies(manifest.devDependencies)]);
      const wrong: string[] = [];
      const check = (files: string[], allowed: Set<string>) => {
        for (const file of files) {
          for (const specifier of importsOf(readFileSync(file, "utf8"))) {
            const target = targetFolder(specifier, file, folder);
            if (target !== undefined && !allowed.has(target)) {
              wrong.push(`${relative(PACKAGES_DIR, file)} imports ${specifier}`);
            }
          }
        }
      };
      const root = join(PACKAGES_DIR, folder);
      const rootFiles = readdirSync(root)
        .filter(
          (entry) => /\.(m?[jt]sx?)$/.test(entry) && !entry.endsWith(".d.ts") && !entry.includes(".config."),
        )
        .map((entry) => join(root, entry));
      check([...rootFiles, ...SOURCE_FOLDERS.flatMap((sub) => filesUnder(join(root, sub)))], productDeps);
      check(
        DEV_FOLDERS.flatMap((sub) => filesUnder(join(root, sub))),
        devDeps,
      );
      expect(wrong).toEqual([]);
    });
  }
});
