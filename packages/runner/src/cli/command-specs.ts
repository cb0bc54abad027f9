/**
 * The flags and help of every `webbrain` command, as data: the parser and `--help` both read
 * these, so a flag cannot exist without its help line.
 */
import { MODES, TIERS, TREE_FILTERS } from "@webbrain/protocol";
import type { CommandSpec, OptionSpecs } from "./argv-parser.js";
import { benchCommand } from "./bench-specs.js";
import { companionCommand } from "./companion-specs.js";
import { localFileOptions } from "./local-file-specs.js";
import { modelOptions } from "./model-specs.js";
import { loginCommand, stateCommand } from "./session-specs.js";
import { traceCommand, workflowCommand } from "./workflow-specs.js";

/** Where the browser comes from: launched here, or a remote one. Shared by every command. */
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
  profile: {
    kind: "string",
    valueName: "DIR",
    help: "Keep logins: use this Firefox profile folder (created if missing, never deleted; refused while another Firefox uses it).",
  },
  "storage-state": {
    kind: "string",
    valueName: "FILE",
    help: "Load cookies and local storage saved by `webbrain state save FILE` (Playwright's storageState format).",
  },
  "max-download-mb": {
    kind: "integer",
    valueName: "N",
    min: 1,
    help: "Size limit of one file the agent downloads (default 100); a bigger one is stopped and removed.",
  },
  ...localFileOptions,
} as const satisfies OptionSpecs;

const modeTierOptions = {
  mode: {
    kind: "enum",
    values: MODES,
    help: "Tool set: ask (read-only), act (default), dev (act + dev tools).",
  },
  tier: { kind: "enum", values: TIERS, help: "Model tier: compact, mid or full (default) tools." },
} as const satisfies OptionSpecs;

const skillOption = {
  kind: "string",
  valueName: "FILE",
  repeatable: true,
  help: "Load a skill (Markdown with an optional webbrain-tools block, as the add-on imports); repeatable. Its tools call out without cookies.",
} as const;

const zimOption = {
  kind: "string",
  valueName: "FILE",
  help: "Offline Wikipedia: when the Wikipedia skill (--skill) cannot reach the site, answer from this Kiwix .zim archive, as the add-on's installed archives do.",
} as const;

const messagingRouteOption = {
  kind: "string",
  valueName: "LINE",
  repeatable: true,
  help: 'Also protect this messaging route with the recipient guard: "HOST /PATH LABEL" (douyin.com /chat is built in); repeatable.',
} as const;

const runOptions = {
  url: { kind: "string", valueName: "URL", help: "Open this page before the task starts." },
  mode: modeTierOptions.mode,
  tier: {
    kind: "enum",
    values: TIERS,
    help: "Model tier: compact, mid or full tools (default: the provider's; llamacpp is compact).",
  },
  provider: {
    kind: "string",
    valueName: "ID",
    help: "Model provider preset (default llamacpp; also ollama, lmstudio, vllm, openai, anthropic, openrouter, ...).",
  },
  "base-url": {
    kind: "string",
    valueName: "URL",
    help: "The provider's API base URL (llamacpp default: http://127.0.0.1:8080).",
  },
  model: { kind: "string", valueName: "NAME", help: "Model name sent to the provider." },
  "api-key-env": {
    kind: "string",
    valueName: "VAR",
    help: "Read the API key from this environment variable (never pass keys as flags).",
  },
  "azure-deployment": {
    kind: "string",
    valueName: "NAME",
    help: "--provider azure: the deployment in your Azure OpenAI resource (--base-url is the resource endpoint).",
  },
  "azure-api-version": {
    kind: "string",
    valueName: "VERSION",
    help: "--provider azure: the API version (default v1).",
  },
  "bedrock-region": {
    kind: "string",
    valueName: "REGION",
    help: "--provider bedrock: the AWS region (default $AWS_REGION); the key is $AWS_BEARER_TOKEN_BEDROCK.",
  },
  ...modelOptions,
  include: {
    kind: "string",
    valueName: "FILE",
    repeatable: true,
    help: "Give the model this file with the task, as the add-on's Attach: text, a PDF's text, or an image (vision models); at most 4. Not --attach, which lets upload_file send a file to a site.",
  },
  "max-steps": { kind: "integer", valueName: "N", min: 1, help: "Stop after N model turns (default 130)." },
  skill: skillOption,
  zim: zimOption,
  "messaging-route": messagingRouteOption,
  plan: { kind: "boolean", help: "Plan before Act: show the plan and ask before acting (needs a terminal)." },
  confirm: {
    kind: "boolean",
    help: "Ask on the terminal before gated actions (permission prompts); off by default.",
  },
  "allow-pause": {
    kind: "boolean",
    help: "Offer pause_for_user: the agent may hand you the browser (log in, captcha) and wait for Enter on stdin. On by default with --headed on a terminal.",
  },
  json: {
    kind: "boolean",
    help: "Print a JSON summary (status, summary, steps, tool calls, tokens) on stdout.",
  },
  trace: { kind: "string", valueName: "FILE", help: "Write every step of the run as JSON lines to FILE." },
  "trace-shots": {
    kind: "integer",
    valueName: "KB",
    min: 1,
    help: "With --trace: keep a screenshot of the page before each step (a JPEG of at most KB kilobytes, the acted-on element's box beside it), for `webbrain trace show FILE --html`.",
  },
  tasks: {
    kind: "string",
    valueName: "FILE",
    help: 'Run every task of FILE instead of one: JSON lines {"task": "...", "url": "..."}; one JSON result line each on stdout.',
  },
  job: {
    kind: "string",
    valueName: "FILE",
    help: "Run a job file exported from the add-on's sidebar (Export on a scheduled task) once: its task, mode and URL (--mode / --url override them). A workflow job replays its workflow (the agent only where the replay stops, if the job allows) and prints replayed / repaired / failed and the step. For cron.",
  },
  approve: {
    kind: "boolean",
    help: "With --job of a workflow job: run its steps though this webbrain did not save or approve them (they are printed first); on a terminal you are asked.",
  },
  parallel: {
    kind: "integer",
    valueName: "N",
    min: 1,
    help: "With --tasks: run N tasks at a time, each in its own user context (cookies apart) of one Firefox (default 1).",
  },
  "api-observer": {
    kind: "boolean",
    help: "API shortcut observer: record the page's fetch/XHR calls (no secrets) so that, with --plan and /allow-api, the planner can repeat one.",
  },
  ...browserOptions,
} as const satisfies OptionSpecs;

export const runCommand: CommandSpec<typeof runOptions> = {
  name: "run",
  summary: "Let the agent do a task in Firefox; the answer goes to stdout, progress to stderr.",
  positionals: [{ name: "task", required: true, unlessOption: ["tasks", "job"] }],
  options: runOptions,
  description: [
    "Exit codes: 0 the task is done, 1 it did not finish (step limit, blocked, model gave up),",
    "2 usage error, 3 Firefox or the model could not be reached.",
    "The default model is a llama.cpp server at http://127.0.0.1:8080 (start one with",
    "`llama-server -m MODEL.gguf --jinja`), or pick another with --provider / --base-url / --model.",
    "Nobody is asked anything unless --plan or --confirm is given; the mode rules always hold.",
    "A person can take over: with --headed on a terminal (or --allow-pause) the agent may call",
    "pause_for_user; its message shows here, and Enter hands the browser back to the agent.",
  ].join("\n"),
  examples: [
    'webbrain run "create a product priced at 500 CNY billed every 2 months" --url http://localhost:3000/products/new',
    'webbrain run "what is the top story?" --url https://news.ycombinator.com --mode ask --json',
    'webbrain run "open my latest invoice" --url https://example.com/login --headed --profile ~/.webbrain/example',
    "webbrain run --job webbrain-job-morning-headline.json --json   # e.g. from cron",
    'OPENAI_API_KEY=... webbrain run "..." --provider openai --model gpt-4.1 --api-key-env OPENAI_API_KEY',
  ],
};

const snapshotOptions = {
  filter: {
    kind: "enum",
    values: TREE_FILTERS,
    help: "Which nodes: all (default), visible, or interactive only.",
  },
  budget: {
    kind: "integer",
    valueName: "CHARS",
    min: 200,
    help: "Cut the tree at this many characters (at least 200), ending with a truncation marker (default: whole tree).",
  },
  json: { kind: "boolean", help: "Print the page action's JSON result instead of the tree text." },
  ...browserOptions,
} as const satisfies OptionSpecs;

export const snapshotCommand: CommandSpec<typeof snapshotOptions> = {
  name: "snapshot",
  summary: "Print the accessibility tree of a page, as the model sees it.",
  positionals: [{ name: "url", required: true }],
  options: snapshotOptions,
  description: "Refs in brackets ([12]) are what click_ax / type_ax take as ref_id.",
  examples: [
    "webbrain snapshot https://example.com",
    "webbrain snapshot http://localhost:3000 --filter all --json",
  ],
};

const execOptions = { ...modeTierOptions, ...browserOptions } as const satisfies OptionSpecs;

export const execCommand: CommandSpec<typeof execOptions> = {
  name: "exec",
  summary: "Run tool calls without a model: one JSON call per stdin line, one JSON answer per stdout line.",
  positionals: [{ name: "url", required: true }],
  options: execOptions,
  description: [
    "Exit codes: 0 every call succeeded, 1 some call failed, 2 usage error, 3 Firefox unavailable.",
    'Each input line is {"tool": NAME, "args": {...}}; each answer is {"tool": NAME, "result": {...},',
    '"text": "..."}: the result object (success, error, the tool\'s fields) and the exact text the model',
    'would read for it (screenshots add "images"). Calls run in order on one',
    "page, through the same executor and mode rules as `run`, and nobody is asked for approval.",
    "An answer is written and flushed as soon as its call finishes, so a script can read a ref",
    "from one answer before it writes the next call.",
  ].join("\n"),
  examples: [
    `printf '%s\\n' '{"tool":"get_accessibility_tree","args":{}}' | webbrain exec https://example.com`,
    `printf '%s\\n' '{"tool":"click_ax","args":{"ref_id":3}}' | webbrain exec http://localhost:3000 --mode act`,
  ],
};

const screenshotOptions = {
  out: { kind: "string", valueName: "FILE", short: "o", help: "Write the PNG here (required)." },
  full: { kind: "boolean", help: "The whole page, not only the viewport." },
  ...browserOptions,
} as const satisfies OptionSpecs;

export const screenshotCommand: CommandSpec<typeof screenshotOptions> = {
  name: "screenshot",
  summary: "Save a PNG screenshot of a page (viewport, or the whole page with --full).",
  positionals: [{ name: "url", required: true }],
  options: screenshotOptions,
  description: "",
  examples: [
    "webbrain screenshot https://example.com -o example.png",
    "webbrain screenshot https://example.com --full -o page.png",
  ],
};

/** `record` shows its window by default: the person works in it. */
const { headed: _shownAnyway, ...recordBrowserOptions } = browserOptions;

const recordOptions = {
  out: {
    kind: "string",
    valueName: "FILE",
    short: "o",
    help: "Write the workflow here when the recording ends (required).",
  },
  name: { kind: "string", valueName: "TEXT", help: "The workflow's name (default: Recorded on HOST)." },
  headless: {
    kind: "boolean",
    help: "Hide the Firefox window (for scripts and tests that act through BiDi; default: shown).",
  },
  ...recordBrowserOptions,
} as const satisfies OptionSpecs;

export const recordCommand: CommandSpec<typeof recordOptions> = {
  name: "record",
  summary:
    "Record what you do on a page (clicks, typing, choices) as a workflow that replays without a model.",
  positionals: [{ name: "url", required: true }],
  options: recordOptions,
  description: [
    "Opens URL in a Firefox window; work there as usual. Each click, each field you type into",
    "(its final text) and each choice in a list becomes a step, its target kept as what it is",
    "(role, name, the part of the page it is in), as `workflow save` keeps an agent's steps. Typed",
    "text becomes a parameter named after the field's label; a password is never recorded: it is",
    "a secret parameter that `workflow run` asks for. Press Ctrl+Alt+S in the page, close the tab,",
    "or press Ctrl-C here to end: FILE is then written whole (mode 0600) and may be run at once",
    "with `webbrain workflow run FILE`.",
  ].join("\n"),
  examples: [
    "webbrain record https://shop.example/order -o order.workflow.json",
    'webbrain workflow run order.workflow.json --param full_name="Grace Hopper"',
  ],
};

const mcpOptions = {
  ...modeTierOptions,
  skill: skillOption,
  zim: zimOption,
  "messaging-route": messagingRouteOption,
  url: { kind: "string", valueName: "URL", help: "Open this page when the server starts." },
  tools: {
    kind: "string",
    valueName: "GROUPS",
    help: "Tool groups to list: core (default; plus dev in Dev mode), frames, selectors, forms, fetch, files, history, dev, or all; comma list, e.g. core,frames. The tool list is sent with every model call.",
  },
  confirm: {
    kind: "boolean",
    help: "Ask the MCP client (elicitation) before gated actions; off by default.",
  },
  "own-firefox": {
    kind: "boolean",
    help: "Serve the tools in your own running Firefox, through the WebBrain add-on's companion: the person allows this client in the sidebar and chooses its tabs (trusted input when that Firefox runs with --remote-debugging-port).",
  },
  port: {
    kind: "integer",
    valueName: "PORT",
    min: 0,
    help: "Serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of stdio: many sessions, each in its own user context (0: any free port).",
  },
  host: {
    kind: "string",
    valueName: "HOST",
    help: "Address to listen on with --port (default 127.0.0.1); beyond loopback only with --token-file.",
  },
  "token-file": {
    kind: "string",
    valueName: "FILE",
    help: "With --port: the bearer token clients must send (default: a new one each start, printed once on stderr).",
  },
  "allow-origin": {
    kind: "string",
    valueName: "ORIGIN",
    repeatable: true,
    help: "With --port: also accept requests (and answer CORS) from this web origin, e.g. http://localhost:6274; repeatable.",
  },
  "allow-host": {
    kind: "string",
    valueName: "NAME",
    repeatable: true,
    help: "With --port: also accept this Host header (NAME or NAME:PORT; loopback names are always accepted); repeatable.",
  },
  "session-idle-timeout": {
    kind: "integer",
    valueName: "SECONDS",
    min: 1,
    help: "With --port: end a session (and its user context) after this long without a request (default 1800).",
  },
  "max-sessions": {
    kind: "integer",
    valueName: "N",
    min: 1,
    help: "With --port: at most N sessions at once; more initializes get 503 (default 8).",
  },
  ...browserOptions,
} as const satisfies OptionSpecs;

export const mcpCommand: CommandSpec<typeof mcpOptions> = {
  name: "mcp",
  summary: "Serve the agent's browser tools over MCP on stdio (for Claude Desktop, editors, agents).",
  positionals: [],
  options: mcpOptions,
  description: [
    "The tools are those of the chosen mode and tier, narrowed to the --tools groups (core by default);",
    "the accessibility tree comes back as text and screenshots as image content. Mode rules hold",
    "for every call (ask is read-only); a tool the groups leave out is refused, naming its group.",
    "Sends on a protected messaging route are refused (recipient guard): no plan names the recipient.",
    'Client config: {"command": "webbrain", "args": ["mcp", "--mode", "act"]}',
    "With --port every request needs `Authorization: Bearer TOKEN` and a loopback Host; web pages",
    "(any Origin not allowed with --allow-origin) are refused.",
  ].join("\n"),
  examples: [
    "webbrain mcp",
    "webbrain mcp --mode ask --headed",
    "webbrain mcp --tools core,frames,files",
    "webbrain mcp --port 8931 --token-file ~/.webbrain/mcp-token",
    "webbrain mcp --own-firefox",
  ],
};

export const COMMANDS = [
  runCommand,
  snapshotCommand,
  execCommand,
  screenshotCommand,
  mcpCommand,
  loginCommand,
  stateCommand,
  traceCommand,
  workflowCommand,
  recordCommand,
  benchCommand,
  companionCommand,
] as const;
