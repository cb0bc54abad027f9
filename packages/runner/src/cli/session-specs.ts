/**
 * Flags and help of the commands for logged-in sessions: `webbrain login` (a person logs in
 * once in a headed Firefox on a persistent profile) and `webbrain state save` (cookies and
 * local storage to a file). Registered in command-specs.ts.
 */
import type { CommandSpec, OptionSpecs } from "./argv-parser.js";

const sessionBrowserOptions = {
  profile: {
    kind: "string",
    valueName: "DIR",
    help: "The Firefox profile folder to use (created if missing, never deleted).",
  },
  "storage-state": {
    kind: "string",
    valueName: "FILE",
    help: "Start from cookies and local storage saved earlier.",
  },
  connect: {
    kind: "string",
    valueName: "ws://HOST:PORT",
    help: "Use a running Firefox's WebDriver BiDi endpoint instead of launching one.",
  },
  firefox: { kind: "string", valueName: "PATH", help: "Firefox binary to launch." },
} as const satisfies OptionSpecs;

const loginOptions = {
  ...sessionBrowserOptions,
  "save-state": {
    kind: "string",
    valueName: "FILE",
    help: "Also save the cookies and local storage to FILE when you are done.",
  },
} as const satisfies OptionSpecs;

export const loginCommand: CommandSpec<typeof loginOptions> = {
  name: "login",
  summary: "Open a Firefox window on a page so you can log in by hand; the login stays in --profile.",
  positionals: [{ name: "url", required: true }],
  options: loginOptions,
  description: [
    "The window is headed (it needs a display). Log in, solve any captcha, then press Enter in",
    "this terminal: Firefox closes and the profile keeps the cookies for later runs with the same",
    "--profile (or the file given with --save-state, for --storage-state).",
  ].join("\n"),
  examples: [
    "webbrain login https://github.com/login --profile ~/.webbrain/github",
    "webbrain login https://example.com/login --profile ./profile --save-state example-state.json",
  ],
};

const stateOptions = {
  ...sessionBrowserOptions,
  url: {
    kind: "string",
    valueName: "URL",
    help: "Open this page first and save its origin's local storage too (cookies are always saved).",
  },
  headed: { kind: "boolean", help: "Show the Firefox window." },
} as const satisfies OptionSpecs;

export const stateCommand: CommandSpec<typeof stateOptions> = {
  name: "state",
  summary: "Save a browser's cookies and local storage to a file: `webbrain state save FILE`.",
  positionals: [
    { name: "action", required: true },
    { name: "file", required: true },
  ],
  options: stateOptions,
  description: [
    "The only action is save. The file has Playwright's storageState shape; load it with",
    "--storage-state FILE on run, exec, snapshot, screenshot and mcp. It holds session secrets:",
    "it is written readable by you alone (mode 600).",
  ].join("\n"),
  examples: [
    "webbrain state save github.json --profile ~/.webbrain/github --url https://github.com",
    'webbrain run "star the repo" --storage-state github.json --url https://github.com/owner/repo',
  ],
};
