/**
 * A saved workflow replayed in a Firefox session, with the agent finishing a stopped replay when
 * a model is given: the one path `webbrain workflow run` and `webbrain run --job` (a workflow
 * job) both take, through @webbrain/agent's runWorkflowJob.
 *
 * Invariants:
 * - Every step goes through the executor's gates in Act mode (replayWorkflow); `confirm` asks on
 *   the terminal before gated actions, else the gate allows, as `webbrain run` does.
 * - The agent's run is traced in memory only: its actions are the repair's steps.
 * - Firefox is closed however the replay ends (withRunnerSession).
 */
import {
  type MessagingRoute,
  type ProviderConfig,
  replayWorkflow,
  runWorkflowJob,
  TraceRecorder,
  type Workflow,
  type WorkflowJobRun,
} from "@webbrain/agent";
import { type RunnerSessionOptions, withRunnerSession } from "../browser/runner-session.js";
import { loadPageScript } from "../port/page-script-source.js";
import { assembleRunnerAgent } from "./agent-assembly.js";
import { terminalApprovals } from "./terminal-approvals.js";

export interface WorkflowReplaySession {
  workflow: Workflow;
  params: Record<string, string>;
  /** The page opened first, through the executor's URL checks ("" stays on the current page). */
  startUrl: string;
  routes: readonly MessagingRoute[];
  /** Where Firefox comes from (launch, --connect, ...). */
  browser: RunnerSessionOptions;
  /** Ask on the terminal before gated actions (`--confirm`). */
  confirm: boolean;
  /** The model that finishes a stopped replay; absent: no handover. */
  model?: ProviderConfig;
}

export interface ReplayIo {
  stdin: NodeJS.ReadableStream;
  stderr: NodeJS.WritableStream;
  signal: AbortSignal;
}

export function replayInSession(session: WorkflowReplaySession, io: ReplayIo): Promise<WorkflowJobRun> {
  const { workflow, model } = session;
  return withRunnerSession(
    { ...session.browser, pageScript: loadPageScript, signal: io.signal },
    async ({ port, tabId }) => {
      const approvals = session.confirm ? terminalApprovals(io.stdin, io.stderr) : undefined;
      try {
        return await runWorkflowJob(workflow, session.params, {
          replay: (replayed, params) =>
            replayWorkflow(port, tabId, replayed, {
              params,
              startUrl: session.startUrl,
              mode: "act",
              routes: session.routes,
              ...(approvals ? { approver: approvals.permission } : {}),
              signal: io.signal,
              onStep: (index, step, outcome, detail) =>
                io.stderr.write(
                  `webbrain: step ${index + 1}/${workflow.steps.length} ${step.tool} ${outcome}${detail ? `: ${detail}` : ""}\n`,
                ),
            }),
          ...(model
            ? {
                handover: async (task: string, stopped: { step: number }) => {
                  io.stderr.write(
                    `webbrain: the replay stopped at step ${stopped.step}; handing over to the agent\n`,
                  );
                  const recorder = new TraceRecorder({
                    task,
                    mode: "act",
                    url: "",
                    provider: model.id,
                    model: model.model,
                  });
                  const agent = assembleRunnerAgent({ port, provider: model, trace: recorder });
                  const outcome = await agent.run(tabId, task, { mode: "act", signal: io.signal });
                  return { status: outcome.status, text: outcome.text, records: recorder.records };
                },
              }
            : {}),
        });
      } finally {
        approvals?.close();
      }
    },
  );
}
