/**
 * Firefox profiles for automation: fresh throw-away ones, and kept ones (`--profile DIR`) that
 * webbrain made.
 *
 * Invariants:
 * - Each launch gets its own directory under the OS temp dir (prefix PROFILE_DIR_PREFIX) so two
 *   launches never share state and cleanup can remove the whole tree.
 * - Every profile webbrain makes holds a marker file (PROFILE_MARKER_FILE, profile-marker.ts). A
 *   folder without it is not ours: a kept profile must be ours (or new, or empty) before we write
 *   its `user.js`, and only marked temp profiles of dead owners are swept.
 * - Prefs go into `user.js`, which Firefox applies at every start; caller prefs override ours.
 * - Nothing here reaches the network or the user's everyday profile (it is refused, untouched).
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ForeignProfileError,
  PROFILE_DIR_PREFIX,
  ProfileUnavailableError,
  profileLockHolder,
  profileOwnership,
  sweepDeadTempProfiles,
  writeProfileMarker,
} from "./profile-ownership.js";

export {
  ForeignProfileError,
  PROFILE_DIR_PREFIX,
  PROFILE_MARKER_FILE,
  ProfileUnavailableError,
  profileLockHolder,
  sweepDeadTempProfiles,
} from "./profile-ownership.js";

export type PrefValue = string | number | boolean;

/** Never-resolving host for services we turn off, so a stray request fails fast and offline. */
const OFFLINE_HOST = "http://offline.invalid";

/**
 * Our automation prefs. Why each group exists:
 * - quiet start: no first-run, what's-new, default-browser or crash-restore pages, so the browser
 *   opens one blank tab and nothing steals focus or navigates;
 * - no background network: updates, telemetry, remote settings, captive portal, search and
 *   add-on metadata refreshes would add startup work and flaky traffic (Safe Browsing: see
 *   TEMP_PROFILE_PREFS and KEPT_PROFILE_PREFS);
 * - the popup blocker stays on (a trusted click still opens the one popup it asks for; blocked
 *   ones are counted by the page layer and reported in the action's result);
 * - no modal interruptions: slow-script, hang and quit dialogs block automation;
 * - no password saving: passwords the agent types must not be written to the profile;
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
  // popup blocker on, as in any Firefox a person uses: a page must not open tabs at will. Written
  // out because Firefox's remote agent turns it off unless user.js says otherwise.
  "dom.disable_open_during_load": true,
  "dom.block_multiple_popups": true,
  // no modal interruptions
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

/**
 * Safe Browsing in a throw-away profile: off. Its lists download after start and the profile is
 * gone before they are of use, so it would protect nothing and add traffic at every launch.
 */
export const TEMP_PROFILE_PREFS: Readonly<Record<string, PrefValue>> = {
  "browser.safebrowsing.malware.enabled": false,
  "browser.safebrowsing.phishing.enabled": false,
  "browser.safebrowsing.downloads.enabled": false,
  "browser.safebrowsing.blockedURIs.enabled": false,
};

/**
 * Safe Browsing in a kept profile (`--profile`, where a person logs in): on, as in their own
 * Firefox. Written out because Firefox's remote agent turns these off unless user.js sets them.
 */
export const KEPT_PROFILE_PREFS: Readonly<Record<string, PrefValue>> = {
  "browser.safebrowsing.malware.enabled": true,
  "browser.safebrowsing.phishing.enabled": true,
  "browser.safebrowsing.downloads.enabled": true,
  "browser.safebrowsing.blockedURIs.enabled": true,
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

/**
 * Creates a fresh temp profile with our prefs plus `extraPrefs` (which win), marked with this
 * process as its owner, as a copy of `seedDir` when given (seed-profile.ts; a copy that fails
 * leaves the profile empty, as without a seed). Sweeps temp profiles left by dead runs first.
 * Returns its path.
 */
export function createTempProfile(
  extraPrefs: Readonly<Record<string, PrefValue>> = {},
  seedDir?: string,
): string {
  // validate before touching disk
  const userJs = renderUserJs({ ...AUTOMATION_PREFS, ...TEMP_PROFILE_PREFS, ...extraPrefs });
  sweepDeadTempProfiles(tmpdir());
  const dir = mkdtempSync(join(tmpdir(), PROFILE_DIR_PREFIX));
  try {
    if (seedDir !== undefined) copySeed(seedDir, dir);
    writeProfileMarker(dir, "temp");
    writeFileSync(join(dir, "user.js"), userJs);
  } catch (err) {
    removeProfileSync(dir);
    throw err;
  }
  return dir;
}

/** Copies a seed into an empty profile folder; on failure empties it again. */
function copySeed(seedDir: string, dir: string): void {
  try {
    cpSync(seedDir, dir, { recursive: true, verbatimSymlinks: true });
  } catch {
    // The seed went away mid-copy (rebuilt, or removed by the user): start empty instead.
    for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
  }
}

/** Removes a profile tree; retries briefly because Firefox may still be flushing files. */
export function removeProfileSync(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}

/** First line of a user.js we wrote; a user.js without it belongs to the profile's owner. */
const USER_JS_MARKER = "// Written by @webbrain/bidi";
/**
 * Readies a persistent profile the user keeps (`--profile DIR`): creates the folder if missing,
 * refuses one webbrain did not make (ForeignProfileError: an everyday profile is never given our
 * user.js), refuses one another Firefox holds, writes our prefs to user.js. Never removed by us.
 */
export function preparePersistentProfile(
  dir: string,
  extraPrefs: Readonly<Record<string, PrefValue>> = {},
): void {
  const userJs = renderUserJs({ ...AUTOMATION_PREFS, ...KEPT_PROFILE_PREFS, ...extraPrefs }).replace(
    /^.*\n/,
    `${USER_JS_MARKER}: automation prefs, rewritten at every start by webbrain (--profile).\n`,
  );
  const ownership = profileOwnership(dir, USER_JS_MARKER);
  if (ownership.kind === "foreign") {
    throw new ForeignProfileError(dir, ownership.profileFiles, ownership.entries);
  }
  const holder = profileLockHolder(dir);
  if (holder !== undefined) {
    throw new ProfileUnavailableError(
      `The Firefox profile ${dir} is in use by another Firefox (pid ${holder}). Close that Firefox, or pass another --profile, and run again.`,
    );
  }
  if (ownership.kind === "new") {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  // A profile made before markers existed is known by its user.js: mark it now. A temp one named
  // as --profile becomes kept, so no sweep removes it.
  if (ownership.kind !== "marked" || ownership.markerKind !== "persistent") {
    writeProfileMarker(dir, "persistent");
  }
  writeFileSync(join(dir, "user.js"), userJs);
  // A previous run killed mid-way leaves its endpoint file; it would point at a dead port.
  rmSync(join(dir, "WebDriverBiDiServer.json"), { force: true });
}
