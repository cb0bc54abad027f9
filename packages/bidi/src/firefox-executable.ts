/**
 * Finds the Firefox binary to launch.
 *
 * Order (first hit wins): the explicit option, then $FIREFOX_BIN, then `firefox` and
 * `firefox-esr` on $PATH. An explicit or $FIREFOX_BIN path that is not an executable file is an
 * error, never silently skipped: the user asked for that binary.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { FirefoxNotFoundError } from "./errors.js";

/** Names looked up on PATH, in order. */
export const FIREFOX_PATH_NAMES = ["firefox", "firefox-esr"] as const;

const INSTALL_HINT =
  "Install Firefox (Debian/Ubuntu: `sudo apt-get install -y firefox-esr`), or point FIREFOX_BIN or the" +
  " executablePath option at the firefox binary.";

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function describeBadPath(path: string): string {
  try {
    const st = statSync(path);
    if (!st.isFile()) return "is not a file";
    return "is not executable";
  } catch {
    return "does not exist";
  }
}

/** Resolves the Firefox executable or throws FirefoxNotFoundError naming what was tried. */
export function resolveFirefoxExecutable(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit !== undefined && explicit !== "") {
    const path = resolve(explicit);
    if (isExecutableFile(path)) return path;
    throw new FirefoxNotFoundError(
      `Firefox executable ${JSON.stringify(explicit)} (executablePath option) ${describeBadPath(path)}. ${INSTALL_HINT}`,
      [path],
    );
  }
  const fromEnv = env.FIREFOX_BIN;
  if (fromEnv !== undefined && fromEnv !== "") {
    const path = resolve(fromEnv);
    if (isExecutableFile(path)) return path;
    throw new FirefoxNotFoundError(
      `FIREFOX_BIN=${JSON.stringify(fromEnv)} ${describeBadPath(path)}. ${INSTALL_HINT}`,
      [path],
    );
  }
  const dirs = (env.PATH ?? "").split(delimiter).filter((d) => d !== "" && isAbsolute(d));
  const tried: string[] = [];
  for (const name of FIREFOX_PATH_NAMES) {
    for (const dir of dirs) {
      const candidate = join(dir, name);
      tried.push(candidate);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  throw new FirefoxNotFoundError(
    `No Firefox found: no executablePath option, FIREFOX_BIN unset, and neither ${FIREFOX_PATH_NAMES.join(
      " nor ",
    )} is on PATH (${dirs.length} directories searched). ${INSTALL_HINT}`,
    tried,
  );
}
