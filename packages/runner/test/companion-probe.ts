/**
 * What the companion's Firefox tests share: the host installed under a temp HOME (Firefox looks
 * for native-messaging hosts in $HOME/.mozilla), a stand-in add-on with the WebBrain add-on's id
 * (the only one the host manifest allows), and the wait for the companion's process to end.
 */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@webbrain/testkit";
import { runCli } from "./run-cli.js";

export const PROBE_ADDON_ID = "webbrain@webbrain.dev";

/** A temp HOME with `webbrain companion install` done in it. */
export async function homeWithCompanion(prefix: string): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), prefix));
  const installed = await runCli(["companion", "install"], { env: { HOME: home } });
  if (installed.code !== 0) throw new Error(`webbrain companion install failed: ${installed.stderr}`);
  return home;
}

/** Writes the probe add-on into `dir`: its background script, and any pages it opens. */
export async function writeProbeAddon(
  dir: string,
  background: string,
  files: Record<string, string> = {},
): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, "manifest.json"),
    JSON.stringify({
      manifest_version: 2,
      name: "companion probe",
      version: "1.0",
      browser_specific_settings: { gecko: { id: PROBE_ADDON_ID } },
      permissions: ["nativeMessaging", "tabs", "<all_urls>"],
      background: { scripts: ["background.js"] },
    }),
  );
  await writeFile(join(dir, "background.js"), background);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}

/** Resolves once no process `pid` exists; fails naming `what` after `timeoutMs`. */
export async function waitForExit(pid: number, what: string, timeoutMs = 10_000): Promise<void> {
  await waitFor(
    () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    },
    { timeoutMs, message: `${what} (pid ${pid}) still runs` },
  );
}
