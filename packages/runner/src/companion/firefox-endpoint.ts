/**
 * Finds the WebDriver BiDi endpoint of the Firefox that started the companion.
 *
 * Firefox starts a native-messaging host as a direct child of its main process, so the
 * companion's parent is that Firefox (the installed wrapper `exec`s Node, adding no process).
 * From the parent we find its profile, and in the profile the file Firefox writes when its
 * remote agent listens: WebDriverBiDiServer.json, `{"ws_host", "ws_port"}`. Checked on Firefox
 * 153 ESR (see the notes in the companion's README section):
 * - the main process keeps `<profile>/.parentlock` open for its whole life, so
 *   /proc/<pid>/fd names the profile also when Firefox was started by profile name (`-P work`)
 *   or with no profile flag at all, where the command line does not say it;
 * - the command line's `--profile DIR` is the fallback (a platform without /proc fd links);
 * - the port in the command line is no help: `--remote-debugging-port 0` lets the OS choose.
 *
 * Invariant: every way this fails answers a reason a person can act on (start Firefox with
 * --remote-debugging-port, ...); nothing here throws for a Firefox without BiDi.
 */
import { readdir, readFile, readlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export const BIDI_ENDPOINT_FILE = "WebDriverBiDiServer.json";
const PROFILE_LOCK_FILE = ".parentlock";

export type BidiDiscovery =
  | { found: true; endpoint: string; profileDir: string; firefoxPid: number }
  | { found: false; reason: string; firefoxPid: number };

/** How to start Firefox so the companion can lend trusted input (shown in the add-on's Settings). */
export const START_WITH_BIDI_HINT =
  "Start Firefox with WebDriver BiDi on: firefox --remote-debugging-port 0 (any free port; 0 lets the system choose).";

async function commandLine(pid: number): Promise<string[]> {
  const raw = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  return raw.split("\0").filter((arg) => arg !== "");
}

/** The profile folder the Firefox process `pid` holds, or undefined when it cannot be told. */
export async function firefoxProfileDir(pid: number): Promise<string | undefined> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
    if (basename(target) === PROFILE_LOCK_FILE) return dirname(target);
  }
  const args = await commandLine(pid);
  const flag = args.findIndex((arg) => arg === "--profile" || arg === "-profile");
  return flag >= 0 ? args[flag + 1] : undefined;
}

/** `ws://host:port` from a profile's WebDriverBiDiServer.json; undefined when absent or unreadable. */
export async function readBidiEndpointFile(profileDir: string): Promise<string | undefined> {
  const text = await readFile(join(profileDir, BIDI_ENDPOINT_FILE), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const { ws_host: host, ws_port: port } = JSON.parse(text) as { ws_host?: unknown; ws_port?: unknown };
    if (typeof host !== "string" || typeof port !== "number") return undefined;
    return `ws://${host.includes(":") ? `[${host}]` : host}:${port}`;
  } catch {
    return undefined;
  }
}

/** The BiDi endpoint of the Firefox process `firefoxPid` (default: this process's parent). */
export async function discoverFirefoxBidi(firefoxPid: number = process.ppid): Promise<BidiDiscovery> {
  const profileDir = await firefoxProfileDir(firefoxPid);
  if (!profileDir) {
    return {
      found: false,
      firefoxPid,
      reason: `The companion's parent (pid ${firefoxPid}) shows no Firefox profile; it must be started by Firefox for the add-on.`,
    };
  }
  const endpoint = await readBidiEndpointFile(profileDir);
  if (!endpoint) {
    return {
      found: false,
      firefoxPid,
      reason: `This Firefox runs without WebDriver BiDi (no ${BIDI_ENDPOINT_FILE} in its profile). ${START_WITH_BIDI_HINT}`,
    };
  }
  return { found: true, endpoint, profileDir, firefoxPid };
}
