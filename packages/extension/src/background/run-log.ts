/**
 * RunLog: what one detached run leaves for the sidebar. The agent's events become journal
 * events (RunJournal -> `runUi:<tabId>`, pushed to whoever subscribes) and final transcript
 * items (`tabChat:<tabId>`); the run's result becomes its last items and its one `run_end`.
 *
 * Invariants:
 * - A transcript item enters the in-memory transcript in the same synchronous step as its
 *   journal event, so a subscriber that reads both at once sees each item exactly once (in
 *   the transcript, with the event's seq already covered by the snapshot); the storage write
 *   follows.
 * - Agent events are handled one after another, in the order the agent made them, and the
 *   result's items come after all of them.
 * - Secrets the run typed (secret-values.ts) are cut out of every later event and item; a typed
 *   value is shown only once its call proved not to type a secret.
 * - Nothing is journaled after `run_end`.
 */
import { type AgentEvent, type RunResult, redactTypedArg, SecretScrubber, typedValue } from "@webbrain/agent";
import type { Mode } from "@webbrain/protocol";
import { t } from "../shared/i18n.js";
import type { JournalEntry, RunEvent } from "../shared/run-events.js";
import type { TranscriptItem } from "../shared/transcript.js";
import { argsSummary, firstLine, nudgeText, resultText, TOOL_SUMMARY_CHARS } from "./panel-text.js";
import { type Clock, RunJournal } from "./run-journal.js";
import type { TabSession, TabSessions } from "./tab-sessions.js";

const TOOL_DETAIL_CHARS = 2_000;

export interface RunLogPlace {
  tabId: string;
  runId: string;
  mode: Mode;
  session: TabSession;
  sessions: TabSessions;
  clock: Clock;
  /** Each journal entry as it is made (the run manager's subscribers). */
  publish(entry: JournalEntry): void;
}

export class RunLog {
  readonly journal: RunJournal;
  private readonly secrets = new SecretScrubber();
  /** Each call's arguments as JSON, raw (shown once the call proved not to type a secret). */
  private readonly toolArgs = new Map<string, { raw: string; redacted: string }>();
  private lastAssistantText: string | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly place: RunLogPlace) {
    const { tabId, runId, mode, sessions, clock } = place;
    this.journal = new RunJournal(
      tabId,
      runId,
      mode,
      { write: (_key, snap) => sessions.writeRun(tabId, snap) },
      clock,
    );
  }

  emit(event: RunEvent): void {
    if (this.journal.status !== "running") return;
    this.place.publish(this.journal.append(this.secrets.scrub(event)));
  }

  /** Add a final transcript item and announce it in one synchronous step; then store it. */
  async commit(given: TranscriptItem): Promise<void> {
    const item = this.secrets.scrub(given);
    const written = this.place.sessions.appendTo(this.place.session, [item]);
    this.emit({ kind: "item", item });
    await written;
  }

  /** Runs `work` after every event already queued (a stream reset lands after its deltas). */
  queue(work: () => Promise<void> | void): Promise<void> {
    const next = this.chain.then(work).catch(() => undefined);
    this.chain = next;
    return next;
  }

  onAgentEvent(event: AgentEvent): Promise<void> {
    return this.queue(() => this.translate(event));
  }

  /**
   * The result's last item and the run's one `run_end`. `neededPerson`: why a scheduled run's
   * hand-over waited in vain, when it did (its stop then says it needed a person).
   */
  async finish(result: RunResult, neededPerson: string | undefined): Promise<void> {
    // Agent events are delivered without awaiting; let their writes land first.
    await this.chain;
    const now = this.place.clock.now();
    const text = resultText(result).trim();
    let end: Extract<RunEvent, { kind: "run_end" }>;
    switch (result.status) {
      case "done":
      case "answered":
      case "clarify":
        if (text !== "" && text !== this.lastAssistantText) {
          await this.commit({ kind: "assistant", text, at: now });
        }
        end = { kind: "run_end", status: "done" };
        break;
      case "aborted":
        if (neededPerson !== undefined) {
          const notice = t("noticeNeededPerson", neededPerson);
          await this.commit({ kind: "notice", text: notice, at: now });
          end = { kind: "run_end", status: "stopped", message: notice, needsPerson: true };
          break;
        }
        await this.commit({ kind: "notice", text: t("noticeStopped"), at: now });
        end = { kind: "run_end", status: "stopped", message: t("stoppedShort") };
        break;
      case "step_limit":
      case "stopped": {
        const notice = resultText(result);
        await this.commit({ kind: "notice", text: notice, at: now });
        end = { kind: "run_end", status: "stopped", message: notice };
        break;
      }
      case "plan_rejected":
        await this.commit({ kind: "notice", text: resultText(result), at: now });
        end = { kind: "run_end", status: "done" };
        break;
      case "error": {
        const failure = resultText(result);
        await this.commit({ kind: "error", text: failure, at: now });
        end = { kind: "run_end", status: "error", message: failure };
        break;
      }
    }
    this.emit({ ...end, ending: result.status });
    await this.journal.settled().catch(() => undefined);
  }

  private async translate(event: AgentEvent): Promise<void> {
    const now = this.place.clock.now();
    switch (event.type) {
      case "step":
        this.emit({ kind: "status", text: t("statusStep", event.step, event.maxSteps) });
        break;
      case "text_delta":
        this.emit({ kind: "text_delta", text: event.delta });
        break;
      case "assistant_text":
        this.lastAssistantText = event.text.trim();
        await this.commit({ kind: "assistant", text: event.text, at: now });
        break;
      case "tool_call": {
        // Whether the field is secret is known only from the result: until then the journal
        // (storage.session, read by a reopened sidebar) shows no typed text.
        const redacted = JSON.stringify(redactTypedArg(event.name, event.args));
        this.toolArgs.set(event.id, { raw: JSON.stringify(event.args), redacted });
        // A turn that streamed text and then called a tool: keep the text, then the card.
        if (this.journal.current().streamText !== "") this.emit({ kind: "text_reset" });
        this.emit({ kind: "tool_start", call: { callId: event.id, name: event.name, args: redacted } });
        break;
      }
      case "tool_result": {
        const call = this.toolArgs.get(event.id);
        if (event.secret && call) {
          const typed = typedValue(event.name, JSON.parse(call.raw) as Record<string, unknown>);
          if (typed !== undefined) this.secrets.add(typed);
        }
        const args = (event.secret ? call?.redacted : call?.raw) ?? "{}";
        await this.commit({
          kind: "tool",
          callId: event.id,
          name: event.name,
          args,
          success: event.ok,
          // What the call did when it worked; why it failed when it did not.
          summary: event.ok ? argsSummary(args) : firstLine(event.preview, TOOL_SUMMARY_CHARS),
          detail: event.preview.slice(0, TOOL_DETAIL_CHARS),
          at: now,
        });
        break;
      }
      case "nudge":
        await this.commit({ kind: "notice", text: nudgeText(event), at: now });
        break;
      case "context_trimmed":
        await this.commit({ kind: "notice", text: t("noticeSummarized", event.summarized), at: now });
        break;
      case "plan_decision":
        await this.commit({
          kind: "notice",
          text: event.approved ? t("planApproved") : t("planRejected"),
          at: now,
        });
        break;
      case "run_start":
      case "run_end":
      case "plan":
        break;
    }
  }
}
