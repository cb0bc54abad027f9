/**
 * `webbrain run "<task>"`: the agent does a task in Firefox. Progress on stderr, the answer on
 * stdout (or a JSON summary with --json), an exit code scripts can branch on.
 *
 * Invariants:
 * - The model endpoint is probed before Firefox starts, so "no model" costs no browser launch
 *   and is one message (exit 3).
 * - Nobody is asked anything unless --plan / --confirm; those need a terminal.
 * - pause_for_user is offered only when a person is at hand: --allow-pause, or --headed with a
 *   terminal. An unattended run never waits for nobody.
 * - Firefox is closed however the run ends (withRunnerSession); a trace file appears complete
 *   or not at all.
 * - If Firefox dies mid-run the run ends at once (the model call in flight is stopped, the port
 *   fails fast with `browser_unavailable`), exits 3, and --json still prints its summary.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  type AgentEvent,
  browserUnavailable,
  devOnCompact,
  type JobFile,
  JobFileError,
  messageWithAttachments,
  PiAiClient,
  parseJobFile,
  type RunResult,
  type RunStatus,
  type WorkflowJobFileEntry,
} from "@webbrain/agent";
import { modeFitsTier } from "@webbrain/protocol";
import { BidiApiObserver } from "../browser/api-observer-bidi.js";
import { checkCommandLineUrl, withRunnerSession } from "../browser/runner-session.js";
import { EXIT_DONE, EXIT_NOT_FINISHED, EXIT_UNAVAILABLE, type ExitCode, UsageError } from "../errors.js";
import { browserGoneMessage, failWhenBrowserGone } from "../port/browser-gone.js";
import { loadPageScript } from "../port/page-script-source.js";
import { assembleRunnerAgent } from "../run/agent-assembly.js";
import { CountingLlm, type TokenUsage } from "../run/counting-llm.js";
import { ProgressReporter } from "../run/progress-reporter.js";
import {
  ensureModelReachable,
  modelUnavailableMessage,
  providerFromFlags,
  resolveVision,
} from "../run/provider-options.js";
import { loadSkillFiles } from "../run/skill-files.js";
import { checkImagesFit, readTaskAttachments } from "../run/task-attachments.js";
import { terminalApprovals } from "../run/terminal-approvals.js";
import { TraceWriter } from "../run/trace-writer.js";
import { terminalPerson } from "../run/wait-for-person.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { runCommand } from "./command-specs.js";
import {
  browserOptionsFrom,
  messagingRoutesFrom,
  providerFlagsFrom,
  skillNetworkFrom,
} from "./shared-options.js";

type Options = ParsedOptions<typeof runCommand.options>;

/** What `--json` prints (public: scripts parse it). */
export interface RunSummary {
  status: RunStatus;
  summary: string;
  steps: number;
  toolCalls: number;
  tokens: TokenUsage;
  error?: { kind: string; message: string };
}

const BYTES_PER_KB = 1024;

const FINISHED: ReadonlySet<RunStatus> = new Set(["done", "answered"]);

/**
 * `--job FILE`: the exported job's task, with its mode and URL unless --mode / --url say
 * otherwise; or a workflow job, which replays (workflow-job-command.ts). A bad file is a usage
 * error before anything starts.
 */
async function fromJobFile(
  path: string,
  positionals: string[],
  options: Options,
): Promise<
  { positionals: string[]; options: Options } | { workflowJob: JobFile & { job: WorkflowJobFileEntry } }
> {
  if (positionals.length > 0 || options.tasks) {
    throw new UsageError("--job runs the job file's task: give no task text and no --tasks with it.");
  }
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(
      `--job ${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? error}).`,
    );
  }
  try {
    const file = parseJobFile(text);
    const { job } = file;
    if (job.kind === "workflow") return { workflowJob: { ...file, job } };
    return {
      positionals: [job.prompt],
      options: {
        ...options,
        mode: options.mode ?? job.mode,
        ...(options.url || !job.url ? {} : { url: job.url }),
      },
    };
  } catch (error) {
    if (error instanceof JobFileError) throw new UsageError(`--job ${path}: ${error.message}`);
    throw error;
  }
}

export async function runCommandHandler(
  givenPositionals: string[],
  givenOptions: Options,
  io: CliIo,
): Promise<ExitCode> {
  const fromJob = givenOptions.job
    ? await fromJobFile(givenOptions.job, givenPositionals, givenOptions)
    : { positionals: givenPositionals, options: givenOptions };
  if ("workflowJob" in fromJob) {
    const { runWorkflowJobFile } = await import("./workflow-job-command.js");
    return runWorkflowJobFile(resolve(givenOptions.job!), fromJob.workflowJob, givenOptions, io);
  }
  if (givenOptions.approve)
    throw new UsageError("--approve is for a workflow job (--job FILE); a task needs no approval.");
  const { positionals, options } = fromJob;
  if (options.tasks && options["allow-pause"]) {
    throw new UsageError(
      "--allow-pause needs one task and one person at the terminal; drop it with --tasks, or run the task alone.",
    );
  }
  if (options.tasks && options.include) {
    throw new UsageError("--include gives files to one task; drop it with --tasks, or run the task alone.");
  }
  if (options.tasks)
    return (await import("./task-file-command.js")).runTaskFileCommand(positionals, options, io);
  const task = (positionals[0] ?? "").trim();
  if (!task)
    throw new UsageError('The task is empty; say what to do, e.g. webbrain run "find the cheapest lamp".');
  const mode = options.mode ?? "act";
  // Included files are read and bounded now: a refused one is a usage error before anything starts.
  const attachments = await readTaskAttachments(options.include ?? []);
  // Skills are checked before any browser starts: a malformed one is a usage error.
  const skills = await loadSkillFiles(options.skill ?? []);
  const routes = messagingRoutesFrom(options["messaging-route"]);
  const flagged = providerFromFlags(providerFlagsFrom(options), io.env);
  if (!modeFitsTier(mode, flagged.tier)) throw new UsageError(devOnCompact().message);
  if ((options.plan || options.confirm) && !io.interactive) {
    throw new UsageError(
      "--plan and --confirm ask questions on the terminal; run them in a terminal, or drop them.",
    );
  }
  // A refused --url (javascript:, file: without --allow-file-urls) stops here, before the model
  // or Firefox is asked anything.
  const browserOptions = browserOptionsFrom(options);
  if (options.url) checkCommandLineUrl(options.url, browserOptions.localFiles);
  // --zim is opened and checked here too; closed when the run ends, however it ends.
  const network = await skillNetworkFrom(options, skills);
  if (options["trace-shots"] !== undefined && !options.trace)
    throw new UsageError("--trace-shots keeps screenshots in a trace: give --trace FILE with it.");
  const trace = options.trace ? new TraceWriter(resolve(options.trace)) : undefined;
  // Trace records (versioned JSON lines, trace-writer.ts): the recorder sees the model, the
  // port and the events.
  const recorder = trace?.start({
    task,
    mode,
    url: options.url ?? "",
    provider: flagged.id,
    model: flagged.model,
    ...(options["trace-shots"] ? { shots: { maxBytes: options["trace-shots"] * BYTES_PER_KB } } : {}),
  });
  const progress = new ProgressReporter(io.stderr, io.interactive);
  const personAtHand = options["allow-pause"] || (options.headed === true && io.interactive);
  let outcome: { result: RunResult; toolCalls: number; usage: TokenUsage };
  let failure: string | undefined;
  let provider = flagged;
  try {
    progress.status(`checking the model at ${provider.baseUrl}`);
    await ensureModelReachable(provider);
    provider = await resolveVision(provider, options.vision ?? "auto");
    checkImagesFit(attachments, provider.vision);
    progress.status("starting Firefox");
    outcome = await withRunnerSession(
      {
        ...browserOptions,
        pageScript: loadPageScript,
        signal: io.signal,
        ...(options.url ? { url: options.url } : {}),
        finishOnBrowserLoss: true,
        ...(personAtHand ? { person: terminalPerson(io.stdin, io.stderr, () => progress.stop()) } : {}),
      },
      async ({ port, tabId, description, browserLost }) => {
        progress.line(
          `webbrain: ${description}; ${provider.label} model ${provider.model}${provider.vision ? " (images on)" : ""}; mode ${mode}${network.description ? `; ${network.description}` : ""}`,
        );
        const counting = new CountingLlm(new PiAiClient(provider));
        const approvals =
          options.plan || options.confirm ? terminalApprovals(io.stdin, io.stderr) : undefined;
        try {
          // API shortcut observer (off by default), said out loud while it is on.
          const observer = options["api-observer"]
            ? new BidiApiObserver(port.client, port.contexts.bidiEvents)
            : undefined;
          if (observer) {
            observer.start();
            progress.line(
              "webbrain: API shortcut observer is ON: recording the page's fetch/XHR calls (shapes only)",
            );
          }
          const agent = assembleRunnerAgent({
            port: failWhenBrowserGone(port, port.client),
            provider,
            llm: counting,
            // Recipient guard (spec 000): sends on protected messaging routes need the recipient
            // the plan took from the user's own request.
            recipientGuard: { routes },
            trace: recorder,
            maxSteps: options["max-steps"],
            skills,
            skillHttp: network.http,
            ...(observer ? { apiShortcuts: (id: string) => observer.guidance(id) } : {}),
            ...(options.plan && approvals ? { planApprover: approvals.plan } : {}),
            ...(options.confirm && approvals ? { approver: approvals.permission } : {}),
          });
          let toolCalls = 0;
          const images = attachments.flatMap((attachment) =>
            attachment.kind === "image"
              ? [{ data: attachment.dataBase64, mimeType: attachment.mimeType }]
              : [],
          );
          const processed = await agent.run(tabId, task, {
            message: messageWithAttachments(task, attachments),
            mode,
            ...(images.length > 0 ? { images } : {}),
            // Firefox gone ends the run too: the model is not asked again for calls that cannot run.
            signal: AbortSignal.any([io.signal, browserLost]),
            onEvent: (event: AgentEvent) => {
              if (event.type === "tool_call") toolCalls++;
              progress.handle(event);
            },
          });
          const result = browserLost.aborted ? lostResult(processed, browserLost.reason) : processed;
          return { result, toolCalls, usage: counting.usage };
        } finally {
          approvals?.close();
        }
      },
    );
  } catch (error) {
    failure = (error as Error).message;
    throw error;
  } finally {
    progress.stop();
    await trace?.finish(failure);
    await network.close();
  }
  return report(outcome, provider, options, io);
}

/** The run as the loss of Firefox ended it (unless it had finished anyway). */
function lostResult(result: RunResult, reason: unknown): RunResult {
  if (FINISHED.has(result.status)) return result;
  const error = browserUnavailable(browserGoneMessage(reason instanceof Error ? reason : undefined));
  return { status: "error", text: error.message, steps: result.steps, error };
}

function report(
  outcome: { result: RunResult; toolCalls: number; usage: TokenUsage },
  provider: Parameters<typeof modelUnavailableMessage>[0],
  options: Options,
  io: CliIo,
): ExitCode {
  const { result } = outcome;
  const unreachable = result.error?.kind === "provider_unreachable";
  const browserGone = result.error?.kind === "browser_unavailable";
  const summary: RunSummary = {
    status: result.status,
    summary: result.text,
    steps: result.steps,
    toolCalls: outcome.toolCalls,
    tokens: outcome.usage,
    ...(result.error ? { error: { kind: result.error.kind, message: result.error.message } } : {}),
  };
  if (options.json) io.stdout.write(`${JSON.stringify(summary)}\n`);
  else if (FINISHED.has(result.status)) io.stdout.write(`${result.text}\n`);
  if (browserGone) {
    io.stderr.write(`webbrain: ${result.text}\n`);
    return EXIT_UNAVAILABLE;
  }
  if (!FINISHED.has(result.status)) {
    const message = unreachable
      ? modelUnavailableMessage(provider, result.error?.message ?? "")
      : result.text;
    io.stderr.write(`webbrain: the task did not finish (${result.status}): ${message}\n`);
  }
  if (unreachable) return EXIT_UNAVAILABLE;
  return FINISHED.has(result.status) ? EXIT_DONE : EXIT_NOT_FINISHED;
}
