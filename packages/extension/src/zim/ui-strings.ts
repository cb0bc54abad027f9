/**
 * Every user-facing string of the offline archive manager, in one place, so the add-on's
 * localization can move them to `_locales` without hunting through the code.
 */
export const OFFLINE_STRINGS = {
  heading: "Offline Wikipedia",
  intro:
    "When Wikipedia cannot be reached, the Wikipedia skill can answer from Kiwix archives (.zim) you install here. Nothing is downloaded unless you pick an archive.",
  pick: "Install a .zim file from this computer…",
  installing: (name: string) => `Installing ${name}…`,
  installed: (title: string) => `Installed “${title}”.`,
  none: "No offline archive installed.",
  describe: (title: string, language: string, date: string, megabytes: string) =>
    `${title} (${language || "?"}, ${date || "undated"}, ${megabytes} MB)`,
  remove: "Remove",
  downloadHeading: "Or download a .zim from a URL",
  downloadUrl: "Archive URL",
  downloadSha256: "SHA-256 (optional, as listed next to the download)",
  downloadStart: "Download",
  downloadResume: "Resume",
  downloadCancel: "Cancel",
  downloading: (received: string, total: string) => `Downloading… ${received} of ${total} MB`,
  downloadResumed: (count: number) => ` (the connection dropped; resumed ${count}×)`,
  downloadVerifying: "Checking the archive's checksum…",
  downloadInterrupted: (name: string, received: string, why: string) =>
    `${name}: stopped at ${received} MB (${why}). Press Resume to continue.`,
  downloadInstalled: (title: string) => `Downloaded, verified and installed “${title}”.`,
} as const;
