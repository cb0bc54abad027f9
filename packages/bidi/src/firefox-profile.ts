/**
 * Fresh, throw-away Firefox profiles for automation.
 *
 * Invariants:
 * - Each launch gets its own directory under the OS temp dir (prefix PROFILE_DIR_PREFIX) so two
 *   launches never share state and cleanup can remove the whole tree.
 * - Prefs go into `user.js`, which Firefox applies at every start; caller prefs override ours.
 * - Nothing here reaches the network or the user's real profile.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type PrefValue = string | number | boolean;

/** Temp profile directories start with this, so leaks are easy to spot (`ls /tmp/webbrain-ff-*`). */
export const PROFILE_DIR_PREFIX = "webbrain-ff-";

/** Never-resolving host for services we turn off, so a stray request fails fast and offline. */
const OFFLINE_HOST = "http://offline.invalid";

/**
 * Our automation prefs. Why each group exists:
 * - quiet start: no first-run, what's-new, default-browser or crash-restore pages, so the browser
 *   opens one blank tab and nothing steals focus or navigates;
 * - no background network: updates, telemetry, safe browsing, remote settings, captive portal,
 *   search and add-on metadata refreshes would add startup work and flaky traffic;
 * - no modal interruptions: slow-script, hang, quit and popup-blocker dialogs block automation;
 * - automation helpers: file pickers dismissed (BiDi `input.setFiles` needs this on 153),
 *   window.dump to stderr, add-ons only from the profile and the app.
 */
export const AUTOMATION_PREFS: Readonly<Record<string, PrefValue>> = {
  // quiet start
  "browser.startup.page": 0,
  "browser.startup.homepage": "about:blank",
  "browser.startup.homepage_override.mstone": "ignore",
  "startup.homepage_welcome_url": "about:blank",
  "startup.homepage_welcome_url.additional": "",
  "browser.shell.checkDefaultBrowser": false,
  "browser.sessionstore.resume_from_crash": false,
  "toolkit.startup.max_resumed_crashes": -1,
  "browser.newtabpage.enabled": false,
  "browser.aboutwelcome.enabled": false,
  "browser.uitour.enabled": false,
  "browser.translations.automaticallyPopup": false,
  "browser.tabs.warnOnCloseOtherTabs": false,
  "browser.tabs.warnOnOpen": false,
  "browser.warnOnQuit": false,
  "toolkit.cosmeticAnimations.enabled": false,
  // no background network
  "app.update.disabledForTesting": true,
  "app.update.checkInstallTime": false,
  "app.normandy.enabled": false,
  "app.normandy.api_url": "",
  "datareporting.policy.dataSubmissionEnabled": false,
  "datareporting.policy.dataSubmissionPolicyBypassNotification": true,
  "datareporting.healthreport.uploadEnabled": false,
  "toolkit.telemetry.enabled": false,
  "toolkit.telemetry.server": OFFLINE_HOST,
  "browser.safebrowsing.malware.enabled": false,
  "browser.safebrowsing.phishing.enabled": false,
  "browser.safebrowsing.downloads.enabled": false,
  "browser.safebrowsing.blockedURIs.enabled": false,
  "services.settings.server": OFFLINE_HOST,
  "network.captive-portal-service.enabled": false,
  "network.connectivity-service.enabled": false,
  "network.http.speculative-parallel-limit": 0,
  "network.manage-offline-status": false,
  "browser.search.update": false,
  "browser.urlbar.suggest.searches": false,
  "browser.newtabpage.activity-stream.feeds.system.topstories": false,
  "browser.pagethumbnails.capturing_disabled": true,
  "extensions.update.enabled": false,
  "extensions.getAddons.cache.enabled": false,
  "extensions.webservice.discoverURL": OFFLINE_HOST,
  "media.gmp-manager.updateEnabled": false,
  "general.useragent.updates.enabled": false,
  "security.certerrors.mitm.priming.enabled": false,
  "geo.provider.testing": true,
  "dom.push.enabled": false,
  "identity.fxaccounts.enabled": false,
  "browser.region.update.enabled": false,
  "browser.region.network.url": "",
  "browser.discovery.enabled": false,
  "extensions.systemAddon.update.enabled": false,
  "toolkit.telemetry.reportingpolicy.firstRun": false,
  "browser.urlbar.quicksuggest.enabled": false,
  "network.trr.mode": 5, // DNS over HTTPS off: no resolver probing at startup
  // less startup work before Firefox reports "idle startup tasks finished", which session.new awaits
  "browser.newtab.preload": false,
  "browser.backup.enabled": false,
  // no modal interruptions
  "dom.disable_open_during_load": false,
  "dom.max_script_run_time": 0,
  "dom.max_chrome_script_run_time": 0,
  "dom.ipc.reportProcessHangs": false,
  "hangmonitor.timeout": 0,
  "security.notification_enable_delay": 0,
  "signon.rememberSignons": false,
  "signon.autofillForms": false,
  // automation helpers
  "remote.enabled": true,
  "remote.bidi.dismiss_file_pickers.enabled": true,
  "browser.dom.window.dump.enabled": true,
  "extensions.autoDisableScopes": 0,
  "extensions.enabledScopes": 5,
  "extensions.installDistroAddons": false,
  "focusmanager.testmode": true,
  "apz.content_response_timeout": 60_000,
};

/** Renders prefs as user.js lines: `user_pref("name", value);`. */
export function renderUserJs(prefs: Readonly<Record<string, PrefValue>>): string {
  const lines = Object.entries(prefs).map(([name, value]) => {
    if (typeof value === "number" && !Number.isInteger(value)) {
      throw new TypeError(
        `Firefox pref ${name}: ${value} is not an integer; Firefox prefs hold integers only.`,
      );
    }
    return `user_pref(${JSON.stringify(name)}, ${JSON.stringify(value)});`;
  });
  return `// Written by @webbrain/bidi for one automation session.\n${lines.join("\n")}\n`;
}

/** Creates a fresh temp profile with our prefs plus `extraPrefs` (which win). Returns its path. */
export function createTempProfile(extraPrefs: Readonly<Record<string, PrefValue>> = {}): string {
  const userJs = renderUserJs({ ...AUTOMATION_PREFS, ...extraPrefs }); // validate before touching disk
  const dir = mkdtempSync(join(tmpdir(), PROFILE_DIR_PREFIX));
  try {
    writeFileSync(join(dir, "user.js"), userJs);
  } catch (err) {
    removeProfileSync(dir);
    throw err;
  }
  return dir;
}

/** Removes a profile tree; retries briefly because Firefox may still be flushing files. */
export function removeProfileSync(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}

/** First line of a user.js we wrote; a user.js without it belongs to the profile's owner. */
const USER_JS_MARKER = "// Written by @webbrain/bidi";
/** Firefox (Linux, macOS) links `lock` to "HOST:+PID" while it runs a profile. */
const LOCK_LINK = "lock";
const LOCK_TARGET = /:\+(\d+)$/;

/** A persistent profile cannot be used right now (held by another Firefox, or not ours to edit). */
export class ProfileUnavailableError extends Error {
  override readonly name = "ProfileUnavailableError";
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

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Readies a persistent profile the user owns (`--profile DIR`): creates the folder if missing,
 * refuses one another Firefox holds, writes our prefs to user.js. It is never removed by us.
 * A user.js we did not write is the owner's, so we refuse rather than overwrite it.
 */
export function preparePersistentProfile(
  dir: string,
  extraPrefs: Readonly<Record<string, PrefValue>> = {},
): void {
  const userJs = renderUserJs({ ...AUTOMATION_PREFS, ...extraPrefs }).replace(
    /^.*\n/,
    `${USER_JS_MARKER}: automation prefs, rewritten at every start by webbrain (--profile).\n`,
  );
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const holder = profileLockHolder(dir);
  if (holder !== undefined) {
    throw new ProfileUnavailableError(
      `The Firefox profile ${dir} is in use by another Firefox (pid ${holder}). Close that Firefox, or pass another --profile, and run again.`,
    );
  }
  const userJsPath = join(dir, "user.js");
  if (existsSync(userJsPath) && !readFileSync(userJsPath, "utf8").startsWith(USER_JS_MARKER)) {
    throw new ProfileUnavailableError(
      `The Firefox profile ${dir} has its own user.js, which webbrain would overwrite with its automation prefs. Move that file away, or use a separate profile folder for webbrain.`,
    );
  }
  writeFileSync(userJsPath, userJs);
  // A previous run killed mid-way leaves its endpoint file; it would point at a dead port.
  rmSync(join(dir, "WebDriverBiDiServer.json"), { force: true });
}
