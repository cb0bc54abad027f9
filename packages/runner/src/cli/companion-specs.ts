/**
 * Flags and help of `webbrain companion` (registered in command-specs.ts).
 */
import type { CommandSpec, OptionSpecs } from "./argv-parser.js";

const companionOptions = {
  dir: {
    kind: "string",
    valueName: "DIR",
    help: "Folder for the host manifest (default: Firefox's per-user folder, ~/.mozilla/native-messaging-hosts on Linux).",
  },
  launcher: {
    kind: "boolean",
    help: 'With install: also write a desktop entry, "Firefox (WebBrain companion)", that starts Firefox with --remote-debugging-port 0 (Linux), and print the alias line; uninstall removes the entry.',
  },
} as const satisfies OptionSpecs;

export const companionCommand: CommandSpec<typeof companionOptions> = {
  name: "companion",
  summary: "Install, remove or run the add-on's companion (trusted input in your own Firefox).",
  positionals: [{ name: "install|uninstall|serve", required: true }],
  options: companionOptions,
  description: [
    "The companion is a native-messaging host: Firefox starts it for the WebBrain add-on when the",
    "companion is on in the add-on's Settings. In a Firefox started with --remote-debugging-port it",
    "opens that Firefox's WebDriver BiDi session and runs the add-on's page actions through it, so",
    "pages see trusted clicks and keys (isTrusted === true).",
    "`install` writes the host manifest (and the wrapper it names) and prints both paths;",
    "`uninstall` removes them; `serve` is what Firefox runs (messages on stdin and stdout).",
  ].join("\n"),
  examples: [
    "webbrain companion install",
    "webbrain companion install --launcher   # and a desktop entry that starts Firefox with BiDi",
    "webbrain companion uninstall",
    "firefox --remote-debugging-port 0   # then turn the companion on in the add-on's Settings",
  ],
};
