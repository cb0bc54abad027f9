/**
 * What a companion that died without its cleanup leaves behind, and the sweep a new companion
 * runs at start. Firefox starts the companion and ends it by closing its stdin; when Firefox is
 * killed instead (a crash, a `kill -9` of its process group) the companion dies with it and its
 * socket file and downloads folder stay. Each carries the pid of the companion that made it, so
 * the next companion can tell whose owner is gone.
 *
 * Invariants:
 * - Removed only when every count says it is a dead companion's: our name with a pid, not this
 *   process's pid, that pid not running, the expected kind (a socket; a real folder, not a link),
 *   and owned by this user. Anything unreadable, or that vanished meanwhile, is left alone.
 * - Best effort: the sweep never throws; a companion starts whatever it could not remove.
 */
import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { pidAlive } from "@webbrain/bidi";
import { ATTACH_SOCKET_PREFIX, ATTACH_SOCKET_SUFFIX } from "@webbrain/protocol";

/** The companion's downloads folder in the temp folder: `webbrain-companion-<pid>-<uuid>`. */
export const COMPANION_DOWNLOADS_PREFIX = "webbrain-companion-";

export interface LeftoverKind {
  /** Reads the owner pid from a name; undefined: not one of ours. */
  ownerOf(name: string): number | undefined;
  /** What the entry must be to be removed. */
  type: "socket" | "directory";
}

const SOCKET_NAME = new RegExp(`^${ATTACH_SOCKET_PREFIX}(\\d+)${ATTACH_SOCKET_SUFFIX.replace(".", "\\.")}$`);
const DOWNLOADS_NAME = new RegExp(`^${COMPANION_DOWNLOADS_PREFIX}(\\d+)-[0-9a-f-]+$`);

function pidFrom(pattern: RegExp): (name: string) => number | undefined {
  return (name) => {
    const pid = Number(pattern.exec(name)?.[1]);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  };
}

/** `companion-<pid>.sock` in the attach socket folder. */
export const ATTACH_SOCKETS: LeftoverKind = { ownerOf: pidFrom(SOCKET_NAME), type: "socket" };
/** `webbrain-companion-<pid>-<uuid>` in the temp folder. */
export const DOWNLOAD_FOLDERS: LeftoverKind = { ownerOf: pidFrom(DOWNLOADS_NAME), type: "directory" };

/** Removes the entries of `kind` in `parent` whose companion is gone; returns the paths removed. */
export async function sweepDeadCompanionLeftovers(
  parent: string,
  kind: LeftoverKind,
  isAlive: (pid: number) => boolean = pidAlive,
): Promise<string[]> {
  const names = await readdir(parent).catch(() => [] as string[]);
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of names) {
    const owner = kind.ownerOf(name);
    if (owner === undefined || owner === process.pid || isAlive(owner)) continue;
    const path = join(parent, name);
    const info = await lstat(path).catch(() => undefined);
    if (!info || (uid !== undefined && info.uid !== uid)) continue;
    if (kind.type === "socket" ? !info.isSocket() : !info.isDirectory()) continue;
    try {
      await rm(path, { recursive: kind.type === "directory", force: true });
      removed.push(path);
    } catch {
      // not ours to judge: it stays
    }
  }
  return removed;
}
