/** `webbrain bench miniwob`: flags and help (see bench-command.ts). */
import { TIERS } from "@webbrain/protocol";
import type { CommandSpec, OptionSpecs } from "./argv-parser.js";
import { modelOptions } from "./model-specs.js";

export const BENCH_SUITES = ["miniwob"] as const;

const benchOptions = {
  "tasks-dir": {
    kind: "string",
    valueName: "DIR",
    help: "MiniWoB++'s html folder from a local clone (miniwob/html: core/core.js and miniwob/*.html). Required.",
  },
  tasks: {
    kind: "string",
    valueName: "A,B,...",
    help: "Only these tasks (file names without .html); default: every task in DIR/miniwob.",
  },
  seeds: { kind: "integer", valueName: "N", min: 1, help: "Episodes per task, seeds 0..N-1 (default 1)." },
  parallel: {
    kind: "integer",
    valueName: "N",
    min: 1,
    help: "Episodes at once, each in its own user context of one Firefox (default 1).",
  },
  "max-steps": { kind: "integer", valueName: "N", min: 1, help: "Model turns per episode (default 15)." },
  "episode-seconds": {
    kind: "integer",
    valueName: "S",
    min: 1,
    help: "MiniWoB++'s time limit per episode, replacing its 10 s default (default 300).",
  },
  provider: {
    kind: "string",
    valueName: "ID",
    help: "Model provider preset, as for `webbrain run` (default llamacpp).",
  },
  "base-url": { kind: "string", valueName: "URL", help: "The provider's API base URL." },
  model: { kind: "string", valueName: "NAME", help: "Model name sent to the provider." },
  "api-key-env": {
    kind: "string",
    valueName: "VAR",
    help: "Read the API key from this environment variable (never pass keys as flags).",
  },
  tier: {
    kind: "enum",
    values: TIERS,
    help: "Model tier: compact, mid or full tools (default: the provider's).",
  },
  ...modelOptions,
  json: { kind: "boolean", help: "Print the results as JSON (per episode, per task, overall) on stdout." },
  headed: { kind: "boolean", help: "Show the Firefox window (default: headless)." },
  connect: {
    kind: "string",
    valueName: "ws://HOST:PORT",
    help: "Use a running Firefox's WebDriver BiDi endpoint instead of launching one (each episode still gets a user context of its own).",
  },
  firefox: { kind: "string", valueName: "PATH", help: "Firefox binary to launch." },
} as const satisfies OptionSpecs;

export const benchCommand: CommandSpec<typeof benchOptions> = {
  name: "bench",
  summary: "Run a benchmark suite (miniwob: MiniWoB++ tasks from a local copy) through the agent.",
  positionals: [{ name: "suite", required: true }],
  options: benchOptions,
  description: [
    "Each episode opens the task page in its own user context, starts it with its seed as",
    "MiniWoB++'s harness does, gives the agent the task's instruction, and reads the reward the",
    "page reports. Nothing is downloaded: clone Farama-Foundation/miniwob-plusplus yourself.",
    "Prints per-task success, steps, tokens and time, and the overall rate beside the published",
    "reference (BrowserGym GenericAgent with an accessibility tree, Claude-3.5-Sonnet: 69.8%).",
    "Exit codes: 0 finished (whatever the score), 2 usage error, 3 Firefox or the model unreachable.",
  ].join("\n"),
  examples: [
    "webbrain bench miniwob --tasks-dir ~/miniwob-plusplus/miniwob/html --provider openai --model gpt-4.1 --api-key-env OPENAI_API_KEY --seeds 3 --parallel 4",
    "webbrain bench miniwob --tasks-dir ./html --tasks click-button,enter-text --base-url http://127.0.0.1:8080 --json",
  ],
};
