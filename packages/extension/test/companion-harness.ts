/**
 * A Firefox whose add-on can start the companion (`webbrain companion`), for the companion's and
 * `mcp --own-firefox`'s add-on tests: a temp HOME with the host installed by `webbrain companion
 * install` (Firefox finds native-messaging hosts under $HOME/.mozilla and hands its environment
 * on), a private XDG_RUNTIME_DIR for the companion's socket, and the harness's BiDi session lent
 * to the companion through testkit's relay (Firefox allows one session).
 */
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runNodeScript, type SessionRelay, setupFirefox, startSessionRelay } from "@webbrain/testkit";
import { afterAll } from "vitest";
import { ADDON_PREFS } from "./addon-harness.js";

export const WEBBRAIN_BIN = fileURLToPath(new URL("../../runner/bin/webbrain.js", import.meta.url));
/** The runner's COMPANION_SESSION_ENV (companion-host.ts); the add-on package cannot import it. */
export const COMPANION_SESSION_ENV = "WEBBRAIN_COMPANION_SESSION";

export interface CompanionFirefox {
  firefox: ReturnType<typeof setupFirefox>;
  /** Where the companion's socket folder (`webbrain/`) is made: 0700, as mkdtemp makes it. */
  runtimeDir(): string;
}

export function useCompanionFirefox(): CompanionFirefox {
  let home = "";
  let runtimeDir = "";
  let relay: SessionRelay | undefined;
  // Registered before setupFirefox's hooks: afterAll hooks run in reverse order, so this runs
  // once Firefox (and the companion it started) has exited. Run before it, it removed the HOME
  // that Firefox was still writing into (crash-report and telemetry folders): ENOTEMPTY.
  afterAll(async () => {
    await relay?.close();
    if (home) await rm(home, { recursive: true, force: true });
    if (runtimeDir) await rm(runtimeDir, { recursive: true, force: true });
  });
  const firefox = setupFirefox(async () => {
    home = await mkdtemp(join(tmpdir(), "webbrain-addon-companion-"));
    runtimeDir = await mkdtemp(join(tmpdir(), "webbrain-addon-companion-run-"));
    await copySeedProfiles(home);
    const installed = await runNodeScript(WEBBRAIN_BIN, ["companion", "install"], { env: { HOME: home } });
    if (installed.code !== 0) throw new Error(`companion install: ${installed.stderr}`);
    relay = await startSessionRelay(() => firefox.client);
    return {
      prefs: ADDON_PREFS,
      // As the companion's own session asks (browser-connection.ts): dialogs are left to it, so it
      // answers those of the add-on's actions and no others. Without this the lent session's
      // Firefox would dismiss every prompt itself.
      capabilities: { unhandledPromptBehavior: { default: "ignore" } },
      env: { ...process.env, HOME: home, XDG_RUNTIME_DIR: runtimeDir, [COMPANION_SESSION_ENV]: relay.url },
    };
  });
  return { firefox, runtimeDir: () => runtimeDir };
}

/**
 * The user's seed profiles (@webbrain/bidi seed-profile.ts), copied under the temp HOME: a launch
 * looks for its seed under the HOME it gives Firefox, and without one there it would first build
 * one (a whole Firefox start and quit) on every run of these files. Nothing to copy on a machine
 * with no seed yet: the launch then builds it there, as before.
 */
async function copySeedProfiles(home: string): Promise<void> {
  const cache = process.env.XDG_CACHE_HOME || join(process.env.HOME || homedir(), ".cache");
  const seeds = join(cache, "webbrain", "seed-profiles");
  if (!existsSync(seeds)) return;
  const copies = join(home, ".cache", "webbrain", "seed-profiles");
  await mkdir(copies, { recursive: true, mode: 0o700 });
  // Finished seeds only: a `.build-*` folder is another process's build under way.
  for (const name of await readdir(seeds)) {
    if (!name.startsWith(".")) await cp(join(seeds, name), join(copies, name), { recursive: true });
  }
}
