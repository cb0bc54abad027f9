/**
 * Which Firefox profiles are webbrain's: the marker file every profile we make holds, the
 * ownership test a kept profile (`--profile DIR`) must pass before we write to it, the `lock`
 * link that says a Firefox runs it, and the sweep of temp profiles that dead runs left behind.
 *
 * Invariants:
 * - A folder is ours only with a marker we wrote (or, for kept profiles made before markers, a
 *   user.js whose first line is ours). An everyday profile (prefs.js, places.sqlite, logins.json,
 *   key4.db, ...) is refused and left byte-for-byte as it was: nothing is written there.
 * - The sweep removes only a folder that is ours on every count: our prefix, a real directory
 *   (not a link), owned by this user, a temp marker whose owner process is gone, and no live
 *   Firefox holding it. Anything it cannot read it leaves alone.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pidAlive } from "./process-state.js";

/** Temp profile directories start with this, so leaks are easy to spot (`ls /tmp/webbrain-ff-*`). */
export const PROFILE_DIR_PREFIX = "webbrain-ff-";
/** Written into every profile webbrain creates; Firefox ignores it. */
export const PROFILE_MARKER_FILE = "webbrain-profile.json";
/** Firefox (Linux, macOS) links `lock` to "HOST:+PID" while it runs a profile. */
const LOCK_LINK = "lock";
const LOCK_TARGET = /:\+(\d+)$/;
/** Files that say "a Firefox has used this folder as its profile". */
const PROFILE_SIGNS = [
  "prefs.js",
  "places.sqlite",
  "logins.json",
  "key4.db",
  "cookies.sqlite",
  "cert9.db",
  "formhistory.sqlite",
  "times.json",
  "compatibility.ini",
  "sessionstore.jsonlz4",
] as const;
/** How many of a foreign folder's entries an error message names. */
const NAMED_ENTRIES = 6;

export type ProfileKind = "temp" | "persistent";

interface ProfileMarker {
  createdBy: "webbrain";
  kind: ProfileKind;
  /** The process that made it; a temp profile whose owner is gone is swept at the next start. */
  ownerPid: number;
  createdAt: string;
}

/** A persistent profile cannot be used right now (held by another Firefox, or not ours to edit). */
export class ProfileUnavailableError extends Error {
  override readonly name: string = "ProfileUnavailableError";
}

/**
 * `--profile DIR` names a folder webbrain did not create: an everyday Firefox profile or any
 * other non-empty folder. Nothing was written to it.
 */
export class ForeignProfileError extends ProfileUnavailableError {
  override readonly name: string = "ForeignProfileError";
  readonly dir: string;
  /** Firefox profile files found there (empty: a non-empty folder that is no profile). */
  readonly profileFiles: readonly string[];
  constructor(dir: string, profileFiles: readonly string[], entries: readonly string[]) {
    super(foreignMessage(dir, profileFiles, entries));
    this.dir = dir;
    this.profileFiles = profileFiles;
  }
}

function foreignMessage(dir: string, profileFiles: readonly string[], entries: readonly string[]): string {
  const fresh =
    "Pass a new or empty folder to --profile (webbrain creates the profile there; log in once with `webbrain login URL --profile NEWDIR`)";
  if (profileFiles.length === 0) {
    const named = entries.slice(0, NAMED_ENTRIES).join(", ");
    return `The folder ${dir} is not empty (${named}${entries.length > NAMED_ENTRIES ? ", ..." : ""}) and is not a profile webbrain created, so webbrain will not write a profile into it. ${fresh}.`;
  }
  return (
    `The folder ${dir} holds a Firefox profile that webbrain did not create (${profileFiles.join(", ")}); ` +
    "webbrain does not run or change an everyday profile, since its automation prefs would stay in it. " +
    `${fresh}. To keep your logins, copy them into that new profile while no Firefox runs: cookies.sqlite ` +
    "carries the sites' sign-ins; logins.json with key4.db are your saved passwords, copy them only if you " +
    "want the agent's Firefox to have them."
  );
}

export type ProfileOwnership =
  /** Missing, or an empty folder: webbrain may create a profile there. */
  | { kind: "new" }
  | { kind: "marked"; markerKind: ProfileKind }
  /** Webbrain's user.js without a marker: made by a version before markers. */
  | { kind: "legacy" }
  | { kind: "foreign"; profileFiles: string[]; entries: string[] };

/** Who owns `dir`, judged by its contents; `userJsMarker` is the first line of our user.js. */
export function profileOwnership(dir: string, userJsMarker: string): ProfileOwnership {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "new" };
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR") {
      throw new ProfileUnavailableError(`${dir} is a file, not a folder. Pass a folder to --profile.`);
    }
    throw error;
  }
  if (entries.length === 0) return { kind: "new" };
  const marker = readMarker(dir);
  if (marker) return { kind: "marked", markerKind: marker.kind };
  if (readText(join(dir, "user.js"))?.startsWith(userJsMarker)) return { kind: "legacy" };
  const present = new Set(entries);
  return {
    kind: "foreign",
    profileFiles: PROFILE_SIGNS.filter((name) => present.has(name)),
    entries: entries.sort(),
  };
}

export function writeProfileMarker(dir: string, kind: ProfileKind): void {
  const marker: ProfileMarker = {
    createdBy: "webbrain",
    kind,
    ownerPid: process.pid,
    createdAt: new Date().toISOString(),
  };
  writeFileSync(join(dir, PROFILE_MARKER_FILE), `${JSON.stringify(marker)}\n`, { mode: 0o600 });
}

function readMarker(dir: string): ProfileMarker | undefined {
  const text = readText(join(dir, PROFILE_MARKER_FILE));
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<ProfileMarker> | null;
    const kindOk = value?.kind === "temp" || value?.kind === "persistent";
    if (value?.createdBy !== "webbrain" || !kindOk || !Number.isInteger(value.ownerPid)) return undefined;
    return value as ProfileMarker;
  } catch {
    return undefined;
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * The pid of the Firefox that holds `dir`, or undefined when none does. Firefox keeps a `lock`
 * symlink to "HOST:+PID" while it runs (`.parentlock` / `parent.lock` stay behind after exit,
 * so they prove nothing); a link whose process is gone is stale and Firefox takes it over.
 */
export function profileLockHolder(
  dir: string,
  isAlive: (pid: number) => boolean = pidAlive,
): number | undefined {
  let target: string;
  try {
    target = readlinkSync(join(dir, LOCK_LINK));
  } catch {
    return undefined;
  }
  const pid = Number(LOCK_TARGET.exec(target)?.[1]);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
}

/**
 * Removes the temp profiles in `parent` whose owner process died without cleaning up (a
 * `kill -9` the watchdog did not outlive, a power cut) and that no Firefox runs. Best effort:
 * never throws. Returns the folders removed.
 */
export function sweepDeadTempProfiles(
  parent: string,
  isAlive: (pid: number) => boolean = pidAlive,
): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(parent).filter((name) => name.startsWith(PROFILE_DIR_PREFIX));
  } catch {
    return removed;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const dir = join(parent, name);
    try {
      const info = lstatSync(dir);
      if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) continue;
      const marker = readMarker(dir);
      if (marker?.kind !== "temp" || marker.ownerPid === process.pid || isAlive(marker.ownerPid)) continue;
      if (profileLockHolder(dir, isAlive) !== undefined) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // unreadable or vanished meanwhile: not ours to judge
    }
  }
  return removed;
}
