/**
 * `webbrain workflow save TRACE` and `webbrain workflow run FILE --param k=v`: saved workflows
 * and their replay without a model (@webbrain/agent's workflow-*.ts), in a Firefox we launch.
 *
 * Invariants:
 * - A replay that stops exits 1 with the step and the reason on stderr; Firefox is closed
 *   however the replay ends (withRunnerSession).
 * - A file this runner did not save (workflow-approvals.ts) runs only once the user approved
 *   its steps: asked on a terminal, else `--approve`. Approved or not, every step goes through
 *   the executor's gates in Act mode (`--confirm` asks before gated actions, as `run` does).
 * - A secret parameter is never saved nor printed: `save` names it, `run` asks for it (without
 *   echo on a terminal) unless `--param` gives it. Saved files are 0600, written whole.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  Agent,
  describeSteps,
  handoverTask,
  MemoryStore,
  missingSecrets,
  PiAiClient,
  parseWorkflow,
  protectedDispatchStep,
  type ReplayResult,
  replayWorkflow,
  serializeWorkflow,
  type Workflow,
  WorkflowError,
  workflowFromTrace,
} from "@webbrain/agent";
import { EXIT_DONE, EXIT_NOT_FINISHED, type ExitCode, UsageError } from "../errors.js";
import { loadPageScript } from "../page-script-source.js";
import { writePrivateFile } from "../private-file.js";
import { ensureModelReachable, providerFromFlags, resolveVision } from "../provider-options.js";
import { withRunnerSession } from "../runner-session.js";
import { terminalApprovals } from "../terminal-approvals.js";
import { askHidden, askYesNo } from "../terminal-prompts.js";
import { readTraceFile } from "../trace-writer.js";
import { WorkflowApprovals } from "../workflow-approvals.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import { browserOptionsFrom, messagingRoutesFrom, providerFlagsFrom } from "./shared-options.js";
import type { workflowCommand } from "./workflow-specs.js";

type Options = ParsedOptions<typeof workflowCommand.options>;

/** `--param a=1 --param b=2` as {a: "1", b: "2"}. */
export function paramPairs(values: readonly string[] | undefined): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const value of values ?? []) {
    const eq = value.indexOf("=");
    if (eq <= 0) throw new UsageError(`--param needs NAME=VALUE (got "${value}").`);
    pairs[value.slice(0, eq)] = value.slice(eq + 1);
  }
  return pairs;
}

function asUsage<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof WorkflowError) throw new UsageError(error.message);
    throw error;
  }
}

export async function workflowCommandHandler(
  positionals: string[],
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  const [action, file] = positionals;
  if (action === "save") return save(resolve(file!), options, io);
  if (action === "run") return run(resolve(file!), options, io);
  throw new UsageError(
    `Unknown workflow action "${action}"; use \`webbrain workflow save TRACE\` or \`webbrain workflow run FILE\`.`,
  );
}

async function save(tracePath: string, options: Options, io: CliIo): Promise<ExitCode> {
  const records = await readTraceFile(tracePath);
  const workflow = asUsage(() =>
    workflowFromTrace(records, {
      paramNames: paramPairs(options.param),
      ...(options.name ? { name: options.name } : {}),
    }),
  );
  const text = serializeWorkflow(workflow);
  // What this runner saved it may run without asking again (the exact text, by its hash).
  const approvals = new WorkflowApprovals(io.env);
  if (options.out) {
    const out = resolve(options.out);
    await writePrivateFile(out, text);
    await approvals.approve(text, "saved", out);
    const params =
      workflow.params
        .map((p) =>
          p.secret ? `${p.name} (secret: asked at each replay)` : `${p.name} (${JSON.stringify(p.default)})`,
        )
        .join(", ") || "none";
    io.stderr.write(
      `webbrain: saved ${workflow.steps.length} steps to ${options.out}; parameters: ${params}\n`,
    );
  } else {
    await approvals.approve(text, "saved", "(stdout)");
    io.stdout.write(text);
  }
  return EXIT_DONE;
}

/**
 * Runs only a file the user approved: saved by this runner (its hash is known), or shown here
 * and approved now (on a terminal, or by --approve). Answers false when the user said no.
 */
async function ensureApproved(
  path: string,
  text: string,
  workflow: Workflow,
  options: Options,
  io: CliIo,
): Promise<boolean> {
  const approvals = new WorkflowApprovals(io.env);
  if (await approvals.isApproved(text)) return true;
  const steps = describeSteps(workflow).map((line) => `  ${line}`);
  const shown = [
    `webbrain: ${path} was not saved by this webbrain. Its ${workflow.steps.length} steps:`,
    ...steps,
    `  start page: ${options.url ?? (workflow.startUrl || "(the current page)")}`,
    "",
  ].join("\n");
  if (options.approve) {
    io.stderr.write(shown);
    await approvals.approve(text, "approved", path);
    return true;
  }
  if (!io.interactive) {
    io.stderr.write(shown);
    throw new UsageError(
      `${path} has not been approved: read its steps above, then run it again with --approve (or on a terminal, to be asked).`,
    );
  }
  io.stderr.write(shown);
  if (!(await askYesNo(io.stdin, io.stderr, "Run these steps? [y/N] "))) return false;
  await approvals.approve(text, "approved", path);
  return true;
}

/** Values for the secret parameters --param did not give: asked on a terminal, never echoed. */
async function askSecrets(workflow: Workflow, params: Record<string, string>, io: CliIo): Promise<void> {
  const missing = missingSecrets(workflow, params);
  if (missing.length === 0) return;
  if (!io.interactive) {
    const names = missing.map((p) => p.name).join(", ");
    throw new UsageError(
      `The workflow needs the secret parameter ${names}, which is never saved: run it on a terminal to be asked (nothing is shown), or give --param ${missing[0]!.name}=VALUE.`,
    );
  }
  for (const param of missing) {
    try {
      params[param.name] = await askHidden(
        io.stdin,
        io.stderr,
        `${param.name} (secret, for "${param.field}"): `,
      );
    } catch {
      throw new UsageError(`No value was given for the secret parameter ${param.name}.`);
    }
  }
}

async function run(path: string, options: Options, io: CliIo): Promise<ExitCode> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read the workflow ${path}: ${(error as Error).message}.`);
  }
  const workflow: Workflow = asUsage(() => parseWorkflow(text));
  const params = paramPairs(options.param);
  // Checked before anything runs: a bad line is a usage error, never a route silently dropped.
  const routes = messagingRoutesFrom(options["messaging-route"]);
  const blocked = protectedDispatchStep(workflow, routes);
  if (blocked) {
    if (options.json) io.stdout.write(`${JSON.stringify({ status: "stopped", ...blocked, completed: 0 })}\n`);
    io.stderr.write(`webbrain: not run: ${blocked.reason}\n`);
    return EXIT_NOT_FINISHED;
  }
  if (options.confirm && !io.interactive) {
    throw new UsageError("--confirm asks questions on the terminal; run it in a terminal, or drop it.");
  }
  if (!(await ensureApproved(path, text, workflow, options, io))) {
    io.stderr.write("webbrain: not run: the steps were not approved.\n");
    return EXIT_NOT_FINISHED;
  }
  await askSecrets(workflow, params, io);
  const startUrl = options.url ?? workflow.startUrl;
  // The model is checked before Firefox starts, as `run` does, so --handover fails fast.
  const provider = options.handover ? providerFromFlags(providerFlagsFrom(options), io.env) : undefined;
  if (provider) await ensureModelReachable(provider);
  const model = provider ? await resolveVision(provider, options.vision ?? "auto") : undefined;
  let handedOver: { status: string; text: string } | undefined;
  const result: ReplayResult = await withRunnerSession(
    {
      ...browserOptionsFrom(options),
      pageScript: loadPageScript,
      signal: io.signal,
    },
    async ({ port, tabId }) => {
      const approvals = options.confirm ? terminalApprovals(io.stdin, io.stderr) : undefined;
      const replay = () =>
        replayWorkflow(port, tabId, workflow, {
          params,
          // Opened by the replay, through the executor's URL checks (a file's startUrl is data).
          startUrl: startUrl ?? "",
          mode: "act",
          routes,
          ...(approvals ? { approver: approvals.permission } : {}),
          signal: io.signal,
          onStep: (index, step, outcome, detail) =>
            io.stderr.write(
              `webbrain: step ${index + 1}/${workflow.steps.length} ${step.tool} ${outcome}${detail ? `: ${detail}` : ""}\n`,
            ),
        });
      let replayed: ReplayResult;
      try {
        replayed = await replay();
      } catch (error) {
        if (error instanceof WorkflowError) throw new UsageError(error.message);
        throw error;
      } finally {
        approvals?.close();
      }
      if (replayed.status === "stopped" && model && replayed.step > 0) {
        io.stderr.write(`webbrain: the replay stopped at step ${replayed.step}; handing over to the agent\n`);
        const agent = new Agent({
          port,
          store: new MemoryStore(),
          provider: model,
          llm: new PiAiClient(model),
          screenshotAfterActions: model.vision,
        });
        const outcome = await agent.processMessage(tabId, handoverTask(workflow, replayed, params), {
          mode: "act",
          signal: io.signal,
        });
        handedOver = { status: outcome.status, text: outcome.text };
      }
      return replayed;
    },
  );
  if (handedOver) {
    const finished = handedOver.status === "done" || handedOver.status === "answered";
    if (options.json) io.stdout.write(`${JSON.stringify({ ...result, handover: handedOver })}\n`);
    else if (finished) io.stdout.write(`${handedOver.text}\n`);
    if (!finished)
      io.stderr.write(`webbrain: the agent did not finish (${handedOver.status}): ${handedOver.text}\n`);
    return finished ? EXIT_DONE : EXIT_NOT_FINISHED;
  }
  if (options.json) io.stdout.write(`${JSON.stringify(result)}\n`);
  if (result.status === "done") {
    if (!options.json) io.stdout.write(`Replayed ${result.steps} steps of "${workflow.name}".\n`);
    return EXIT_DONE;
  }
  io.stderr.write(`webbrain: the replay stopped at step ${result.step}: ${result.reason}\n`);
  return EXIT_NOT_FINISHED;
}
