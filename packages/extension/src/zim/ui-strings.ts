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
} as const;
