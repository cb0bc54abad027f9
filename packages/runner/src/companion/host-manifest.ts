/**
 * `webbrain companion install` / `uninstall`: the native-messaging host manifest Firefox reads to
 * start the companion for the WebBrain add-on, and the small executable wrapper it points at.
 *
 * Where Firefox looks for a user's host manifest (MDN "Native manifests"):
 * - Linux:   ~/.mozilla/native-messaging-hosts/<name>.json
 * - macOS:   ~/Library/Application Support/Mozilla/NativeMessagingHosts/<name>.json
 * - Windows: the manifest may live anywhere; the registry value
 *            HKEY_CURRENT_USER\Software\Mozilla\NativeMessagingHosts\<name> (default) names it.
 * Install writes Linux's and macOS's file itself; on Windows it writes the manifest and a .cmd
 * wrapper into --dir and prints the `reg add` line to run (writing the registry is the user's
 * call, and nothing here can test it).
 *
 * Invariants:
 * - The manifest's `path` is absolute (Firefox requires it on Linux and macOS) and names the
 *   wrapper, which runs this Node on this checkout's `webbrain companion serve`: the companion
 *   runs the same code that installed it.
 * - Only the WebBrain add-on may start the host (`allowed_extensions`).
 * - Uninstall removes exactly what install wrote (manifest and wrapper) and says so; what is
 *   already gone is not an error.
 */
import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { COMPANION_HOST_NAME } from "@webbrain/protocol";

/** The add-on's gecko id (packages/extension's manifest). */
export const WEBBRAIN_ADDON_ID = "webbrain@webbrain.dev";
const WRAPPER_MODE = 0o755;

export interface HostManifest {
  name: string;
  description: string;
  path: string;
  type: "stdio";
  allowed_extensions: string[];
}

export interface InstallTarget {
  /** Folder of the manifest (and the wrapper). */
  dir: string;
  platform: NodeJS.Platform;
}

/** Firefox's per-user manifest folder for this platform, under `home`. */
export function defaultManifestDir(platform: NodeJS.Platform, home: string = homedir()): string {
  if (platform === "darwin")
    return join(home, "Library", "Application Support", "Mozilla", "NativeMessagingHosts");
  if (platform === "win32") return join(home, "AppData", "Roaming", "WebBrain", "NativeMessagingHosts");
  return join(home, ".mozilla", "native-messaging-hosts");
}

export function manifestPath(target: InstallTarget): string {
  return join(target.dir, `${COMPANION_HOST_NAME}.json`);
}

export function wrapperPath(target: InstallTarget): string {
  return join(target.dir, `${COMPANION_HOST_NAME}${target.platform === "win32" ? ".cmd" : ".sh"}`);
}

/** The runner's bin (bin/webbrain.js), which the wrapper runs. */
export function webbrainBinPath(): string {
  return fileURLToPath(new URL("../../bin/webbrain.js", import.meta.url));
}

/** A shell (or cmd) script that starts the companion with this Node; Firefox's arguments are dropped. */
export function wrapperScript(platform: NodeJS.Platform, nodePath: string, binPath: string): string {
  if (platform === "win32") return `@echo off\r\n"${nodePath}" "${binPath}" companion serve\r\n`;
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  // Firefox passes the manifest path and the add-on id (and on Windows a window handle); the
  // companion needs none of them.
  return `#!/bin/sh\nexec ${quote(nodePath)} ${quote(binPath)} companion serve\n`;
}

export function hostManifest(wrapper: string): HostManifest {
  return {
    name: COMPANION_HOST_NAME,
    description: "WebBrain companion: trusted input for the WebBrain add-on over WebDriver BiDi",
    path: wrapper,
    type: "stdio",
    allowed_extensions: [WEBBRAIN_ADDON_ID],
  };
}

export interface Installed {
  manifest: string;
  wrapper: string;
  /** Windows only: the registry line to run. */
  registryCommand?: string;
}

export async function installHost(
  target: InstallTarget,
  nodePath: string = process.execPath,
  binPath: string = webbrainBinPath(),
): Promise<Installed> {
  await mkdir(target.dir, { recursive: true });
  const wrapper = wrapperPath(target);
  const manifest = manifestPath(target);
  await writeFile(wrapper, wrapperScript(target.platform, nodePath, binPath), { mode: WRAPPER_MODE });
  // An older wrapper keeps its mode on overwrite: say it outright.
  await chmod(wrapper, WRAPPER_MODE);
  await writeFile(manifest, `${JSON.stringify(hostManifest(wrapper), null, 2)}\n`);
  if (target.platform !== "win32") return { manifest, wrapper };
  return {
    manifest,
    wrapper,
    registryCommand: `reg add "HKCU\\Software\\Mozilla\\NativeMessagingHosts\\${COMPANION_HOST_NAME}" /ve /t REG_SZ /d "${manifest}" /f`,
  };
}

/** Removes a file install wrote; false when it was already gone (not an error). */
export async function removeIfPresent(path: string): Promise<boolean> {
  return rm(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return false;
      throw error;
    },
  );
}

/** Removes the manifest and the wrapper; answers the paths that were there. */
export async function uninstallHost(target: InstallTarget): Promise<string[]> {
  const removed: string[] = [];
  for (const path of [manifestPath(target), wrapperPath(target)]) {
    if (await removeIfPresent(path)) removed.push(path);
  }
  return removed;
}
