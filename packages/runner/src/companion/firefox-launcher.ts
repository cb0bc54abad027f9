/**
 * `webbrain companion install --launcher`: a way for the person to start their own Firefox with
 * WebDriver BiDi on, so the companion can lend it trusted input and `mcp --own-firefox` clients
 * can reach it. Written only on request (it is their desktop): on Linux a desktop entry,
 * "Firefox (WebBrain companion)", in ~/.local/share/applications (XDG_DATA_HOME honoured); on
 * every platform the command line is printed, to use as an alias or a shortcut.
 *
 * Invariants:
 * - The port is 0: Firefox picks a free one and writes it into the profile, where the companion
 *   reads it (firefox-endpoint.ts); no fixed port for another program to guess.
 * - Firefox keeps the BiDi server on the loopback interface; the profile is the person's default.
 * - Uninstall removes the entry it wrote; one already gone is not an error.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { removeIfPresent } from "./host-manifest.js";

export const LAUNCHER_FILE = "firefox-webbrain.desktop";
export const BIDI_FLAGS = "--remote-debugging-port 0";

/** The line that starts Firefox with BiDi on (also what the alias and the entry run). */
export function firefoxCommandLine(firefox = "firefox"): string {
  return `${firefox} ${BIDI_FLAGS}`;
}

export function launcherDir(env: Record<string, string | undefined>, home: string = homedir()): string {
  return join(env.XDG_DATA_HOME || join(home, ".local", "share"), "applications");
}

export function desktopEntry(firefox = "firefox"): string {
  return [
    "[Desktop Entry]",
    "Type=Application",
    "Name=Firefox (WebBrain companion)",
    "Comment=Firefox with WebDriver BiDi on, so the WebBrain companion can give the add-on trusted input",
    `Exec=${firefoxCommandLine(firefox)} %u`,
    "Icon=firefox",
    "Terminal=false",
    "Categories=Network;WebBrowser;",
    "",
  ].join("\n");
}

/** Writes the desktop entry (Linux); answers its path. */
export async function installLauncher(dir: string, firefox = "firefox"): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, LAUNCHER_FILE);
  await writeFile(path, desktopEntry(firefox), { mode: 0o644 });
  return path;
}

/** Removes the entry; answers its path when it was there. */
export async function uninstallLauncher(dir: string): Promise<string | undefined> {
  const path = join(dir, LAUNCHER_FILE);
  return (await removeIfPresent(path)) ? path : undefined;
}
