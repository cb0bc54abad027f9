/**
 * Every user-facing string of Settings -> Skills, in one place, so the add-on's localization can
 * move them to `_locales` without hunting through the code.
 */
export const SKILLS_STRINGS = {
  heading: "Skills",
  intro:
    "A skill adds instructions, and optionally tools, to every chat. Importing one is trusting it: its tools may call the web service it declares without asking each time (never with your cookies).",
  empty: "No skills yet.",
  enabled: "Enabled",
  view: "View",
  hide: "Hide",
  remove: "Remove",
  packaged: "built in",
  tools: (names: string[]) => (names.length > 0 ? `Tools: ${names.join(", ")}` : "No tools"),
  problems: (errors: string[]) => `Problems: ${errors.join("; ")}`,
  importHeading: "Import a skill",
  importHint: "Paste the skill's Markdown, or pick a .md file.",
  importButton: "Import",
  importFile: "Import from file…",
  imported: (name: string) => `Imported “${name}”.`,
  removeConfirm: (name: string) => `Remove the skill “${name}”?`,
} as const;
