/**
 * Seed profiles: a fresh Firefox profile spends seconds of its first start creating databases,
 * the startup cache and add-on state (about 2.5 s of a 7-9 s launch on this machine kind). A seed
 * is a profile that one Firefox build started once, at about:blank, and quit in order; each temp
 * profile then starts as a copy of it (about 0.1 s for ~30 MB) and Firefox starts warm.
 *
 * Invariants:
 * - One seed per Firefox build (its application.ini Version and BuildID, and the install folder),
 *   under the user's cache folder (`$XDG_CACHE_HOME` or `~/.cache`, then `webbrain/seed-profiles`).
 *   A seed is copied into every temp profile, so one that another user could have written would
 *   be a way into our Firefox: the folders must be this user's and writable by nobody else, or
 *   the seed is not used (and not touched).
 * - A seed never loaded a page: copies carry nobody's cookies, history or storage.
 * - Built in a temp folder beside its place and renamed into place only when whole (a crash
 *   mid-build leaves a `.build-*` folder, swept later, never a half seed). Two builders race
 *   harmlessly: the second rename fails and that copy is removed.
 * - What belongs to one launch is not in a seed: prefs (each launch writes its own user.js, and
 *   prefs.js would carry the seed launch's), locks, the webbrain marker, session and crash data,
 *   and the files that name the seed's own path (pkcs11.txt would point NSS at the seed's
 *   certificate store).
 * - Best effort: when no seed can be had (unknown build, a build failing, another process
 *   building it right now), the launch goes on with an empty profile as before.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** Set to "off" to launch every temp profile empty (for comparing, or a read-only home). */
export const SEED_PROFILES_ENV = "WEBBRAIN_SEED_PROFILES";
/** Written last into a finished seed; a folder without it is not a seed. */
const SEED_DONE_FILE = "webbrain-seed.json";
const BUILD_PREFIX = ".build-";
/** A `.build-*` folder older than this was left by a crashed build. */
const STALE_BUILD_MS = 10 * 60_000;

/** Files and folders of the seed run that no copy may have (see the header). */
const LAUNCH_OWN_ENTRIES = [
  "prefs.js",
  "user.js",
  "lock",
  ".parentlock",
  "webbrain-profile.json",
  "pkcs11.txt",
  "sessionstore.jsonlz4",
  "sessionstore-backups",
  "sessionCheckpoints.json",
  "crashes",
  "minidumps",
  "datareporting",
  "cache2",
  "safebrowsing",
  "WebDriverBiDiServer.json",
  join("startupCache", "urlCache.bin"),
];

export interface FirefoxBuild {
  /** The install folder (the real executable's folder). */
  installDir: string;
  version: string;
  buildId: string;
}

/**
 * The build of a Firefox executable, read from the application.ini beside it (or beside the
 * `firefox-esr` next to it: Debian's /usr/bin/firefox is a shell script that runs that one);
 * undefined when none is found. Only names the seed: a wrong guess costs a slower start, since
 * Firefox itself rebuilds its caches for a profile another build wrote (compatibility.ini).
 */
export function firefoxBuildOf(executablePath: string): FirefoxBuild | undefined {
  const candidates = [executablePath, join(dirname(executablePath), "firefox-esr")];
  for (const candidate of candidates) {
    try {
      const installDir = dirname(realpathSync(candidate));
      return buildFromIni(installDir, readFileSync(join(installDir, "application.ini"), "utf8"));
    } catch {
      // not an installed Firefox: try the next
    }
  }
  return undefined;
}

function buildFromIni(installDir: string, ini: string): FirefoxBuild | undefined {
  const field = (name: string) => new RegExp(`^${name}=(.+)$`, "m").exec(ini)?.[1]?.trim();
  const version = field("Version");
  const buildId = field("BuildID");
  return version && buildId ? { installDir, version, buildId } : undefined;
}

/** Where seeds live for this user; undefined when seeding is turned off. */
export function seedProfilesRoot(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env[SEED_PROFILES_ENV] === "off") return undefined;
  const cache = env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache");
  return join(cache, "webbrain", "seed-profiles");
}

/** The seed's folder for one build. */
export function seedProfileDir(root: string, build: FirefoxBuild): string {
  const install = createHash("sha256").update(build.installDir).digest("hex").slice(0, 12);
  return join(root, `${build.version.replace(/[^\w.-]/g, "_")}-${build.buildId}-${install}`);
}

/**
 * Whether a folder may be trusted as ours: a real folder (not a link), owned by this user, that
 * nobody else may write.
 */
function ownedPrivateFolder(path: string): boolean {
  try {
    const stat = lstatSync(path);
    const uid = process.getuid?.();
    return stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** A finished seed in `dir` that may be copied, or undefined. */
export function usableSeed(root: string, dir: string): string | undefined {
  if (!ownedPrivateFolder(root) || !ownedPrivateFolder(dir)) return undefined;
  return existsSync(join(dir, SEED_DONE_FILE)) ? dir : undefined;
}

/** Makes the seeds' root (0700) when missing; false when it is not a folder we may trust. */
function readyRoot(root: string): boolean {
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
  } catch {
    return false;
  }
  return ownedPrivateFolder(root);
}

/** Whether another process is building a seed in `root` right now (a fresh `.build-*`). */
function buildUnderWay(root: string): boolean {
  const now = Date.now();
  let busy = false;
  for (const name of readdirSync(root)) {
    if (!name.startsWith(BUILD_PREFIX)) continue;
    const path = join(root, name);
    let age: number;
    try {
      age = now - statSync(path).mtimeMs;
    } catch {
      continue; // finished or removed meanwhile
    }
    if (age < STALE_BUILD_MS) busy = true;
    else rmSync(path, { recursive: true, force: true });
  }
  return busy;
}

/**
 * Starts Firefox on a profile folder, at about:blank, and quits it in order (so its databases
 * and startup cache are written out). The launcher supplies it; this module starts no process.
 */
export type WarmProfile = (profileDir: string) => Promise<void>;

/**
 * The seed for `build`, built first when missing. Undefined when seeding is off, the folder is
 * not trustworthy, another process is building it, or the build failed (the launch then goes on
 * with an empty profile).
 */
export async function ensureSeedProfile(
  build: FirefoxBuild,
  warm: WarmProfile,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const root = seedProfilesRoot(env);
  if (root === undefined) return undefined;
  const dir = seedProfileDir(root, build);
  const ready = usableSeed(root, dir);
  if (ready) return ready;
  if (existsSync(dir) || !readyRoot(root) || buildUnderWay(root)) return undefined;

  const building = mkdtempSync(join(root, BUILD_PREFIX));
  const profile = join(building, "profile");
  try {
    await warm(profile);
    for (const entry of LAUNCH_OWN_ENTRIES) rmSync(join(profile, entry), { recursive: true, force: true });
    writeFileSync(
      join(profile, SEED_DONE_FILE),
      `${JSON.stringify({ version: build.version, buildId: build.buildId, createdAt: new Date().toISOString() })}\n`,
    );
    renameSync(profile, dir);
  } catch {
    // A failed build, or another process renamed its seed into place first.
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return usableSeed(root, dir);
}
