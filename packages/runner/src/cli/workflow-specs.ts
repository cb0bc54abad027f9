/**
 * Flags and help of `webbrain trace` and `webbrain workflow` (registered in command-specs.ts).
 */
import type { CommandSpec, OptionSpecs } from "./argv-parser.js";
import { localFileOptions } from "./local-file-specs.js";
import { modelOptions } from "./model-specs.js";

const browserOptions = {
  headed: { kind: "boolean", help: "Show the Firefox window (default: headless)." },
  connect: {
    kind: "string",
    valueName: "ws://HOST:PORT",
    help: "Use a running Firefox's WebDriver BiDi endpoint instead of launching one.",
  },
  webdriver: {
    kind: "string",
    valueName: "http://HOST:4444",
    help: "Ask a WebDriver server (Selenium Grid 4) for a Firefox session with BiDi.",
  },
  firefox: {
    kind: "string",
    valueName: "PATH",
    help: "Firefox binary to launch (default: $FIREFOX_BIN, then firefox-esr / firefox on PATH).",
  },
  ...localFileOptions,
} as const satisfies OptionSpecs;

const traceOptions = {
  details: { kind: "boolean", help: "Show each step's arguments, result and model request under it." },
  json: { kind: "boolean", help: "Print the timeline as JSON (summary and steps) instead of text." },
  html: {
    kind: "string",
    valueName: "OUT",
    help: "Write the run as a filmstrip to OUT: one self-contained HTML page, a frame per step with its screenshot (--trace-shots) and the action's box.",
  },
} as const satisfies OptionSpecs;

export const traceCommand: CommandSpec<typeof traceOptions> = {
  name: "trace",
  summary: "Show a recorded run (a --trace file or an add-on export) as a timeline.",
  positionals: [
    { name: "show", required: true },
    { name: "file", required: true },
  ],
  options: traceOptions,
  description: [
    "One line per model call and tool call, with time since the start, tokens, durations and",
    "what each click acted on; the same timeline the add-on's traces page shows. With --html, the",
    "filmstrip the add-on's traces page plays and exports (runs recorded with --trace-shots show",
    "the page at each step).",
  ].join("\n"),
  examples: [
    "webbrain trace show run.jsonl",
    "webbrain trace show run.jsonl --details",
    "webbrain trace show run.jsonl --html run.html   # send run.html to anyone",
  ],
};

const workflowOptions = {
  param: {
    kind: "string",
    valueName: "NAME=VALUE",
    repeatable: true,
    help: "save: name the parameter whose typed value is VALUE; run: give parameter NAME this value (repeatable).",
  },
  out: {
    kind: "string",
    valueName: "FILE",
    short: "o",
    help: "save: write the workflow here (default: stdout).",
  },
  name: { kind: "string", valueName: "TEXT", help: "save: the workflow's name (default: the run's task)." },
  url: { kind: "string", valueName: "URL", help: "run: start on this page instead of the one recorded." },
  json: {
    kind: "boolean",
    help: "run: print the replay's result as JSON on stdout; diff: the diff as JSON.",
  },
  approve: {
    kind: "boolean",
    help: "run: run a file this webbrain did not save (its steps are printed first); asked on a terminal otherwise.",
  },
  confirm: {
    kind: "boolean",
    help: "run: ask on the terminal before gated actions (permission prompts), as `run --confirm`.",
  },
  "messaging-route": {
    kind: "string",
    valueName: "LINE",
    repeatable: true,
    help: 'run: also protect this messaging route, as `run --messaging-route`: "HOST /PATH LABEL" (douyin.com /chat is built in); a step that may send there is refused. Repeatable.',
  },
  handover: {
    kind: "boolean",
    help: "run: if the replay stops, let the agent finish the remaining steps (model flags as for `run`) and save its steps as the file's next version.",
  },
  provider: {
    kind: "string",
    valueName: "ID",
    help: "run --handover: model provider preset (default llamacpp).",
  },
  "base-url": { kind: "string", valueName: "URL", help: "run --handover: the provider's API base URL." },
  model: { kind: "string", valueName: "NAME", help: "run --handover: model name sent to the provider." },
  "api-key-env": {
    kind: "string",
    valueName: "VAR",
    help: "run --handover: read the API key from this environment variable.",
  },
  ...modelOptions,
  ...browserOptions,
} as const satisfies OptionSpecs;

export const workflowCommand: CommandSpec<typeof workflowOptions> = {
  name: "workflow",
  summary: "Save a finished run as a workflow, replay a workflow without a model, or diff its versions.",
  positionals: [
    { name: "save|run|diff", required: true },
    { name: "file", required: true },
    { name: "other", required: false },
  ],
  options: workflowOptions,
  description: [
    "save TRACE: the run's actions, with each target kept as what it was (role, name, the part of",
    "the page it is in) and every typed value turned into a parameter.",
    "run FILE: each step finds its target again, acts and checks the effect it had when recorded;",
    "the first step that cannot be matched or checked stops the replay (exit 1) and says why.",
    "Steps that may send a message on a protected messaging route (built in, or given with",
    "--messaging-route) are never replayed: a file with such a step recorded on one is refused",
    "before Firefox starts, and a send on one where the page really is is refused too.",
    "Every step goes through the same gates as the agent's calls, in Act mode (no execute_js, no",
    "javascript: URLs). A file this webbrain did not save (by its exact text) is shown and must be",
    "approved first: on a terminal you are asked; elsewhere pass --approve.",
    "A value typed into a password field is never saved: it is a secret parameter, asked for (not",
    "echoed) on a terminal at each replay, or given with --param.",
    "With --handover, a stopped replay is handed to the agent (Act mode) to finish, told which step",
    "stopped and why and which steps remained; the exit code is then the agent's. When the agent",
    "finishes, its steps replace the recorded ones from the stop on, saved into FILE as its next",
    "version (the old versions stay in the file), so the next replay needs no model. A step a",
    "repair wrote that fails again is reported and not rewritten.",
    "diff A B: the steps and parameters that differ between two workflow files or versions (FILE@N",
    "is version N kept in FILE; `diff FILE` compares its last two versions); exit 1 when they differ.",
  ].join("\n"),
  examples: [
    'webbrain workflow save run.jsonl --param product="Pro plan" -o product.workflow.json',
    'webbrain workflow run product.workflow.json --param product="Team plan"',
    'webbrain workflow run chat.workflow.json --messaging-route "chat.example.com /t Example chat"',
    "webbrain workflow run product.workflow.json --handover --base-url http://localhost:8080/v1",
    "webbrain workflow diff product.workflow.json@1 product.workflow.json@2",
  ],
};
