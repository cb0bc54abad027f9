/**
 * What `webbrain run` shows on stderr while the agent works: one line per step and per tool
 * call with a short result, and on a terminal a spinner on the line being worked on.
 *
 * Invariants: progress never goes to stdout (that is the answer's); on a non-TTY no control
 * characters are written, so logs stay readable; `stop()` clears the spinner line; the text a
 * call types is not shown (it may be a password).
 */
import { type AgentEvent, redactTypedArg } from "@webbrain/agent";

const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const SPINNER_INTERVAL_MS = 100;
/** Characters of a tool's arguments and result shown on its line. */
const ARGS_PREVIEW_CHARS = 80;
const RESULT_PREVIEW_CHARS = 100;

export class ProgressReporter {
  readonly #out: NodeJS.WritableStream;
  readonly #tty: boolean;
  #timer: NodeJS.Timeout | undefined;
  #frame = 0;
  #status = "";

  constructor(out: NodeJS.WritableStream, tty: boolean) {
    this.#out = out;
    this.#tty = tty;
  }

  /** Shows a status (on a TTY, with the spinner) until the next line. */
  status(text: string): void {
    this.#status = text;
    if (!this.#tty) return;
    this.#timer ??= setInterval(() => this.#draw(), SPINNER_INTERVAL_MS);
    this.#draw();
  }

  line(text: string): void {
    this.#clear();
    this.#out.write(`${text}\n`);
    if (this.#tty && this.#status) this.#draw();
  }

  handle(event: AgentEvent): void {
    switch (event.type) {
      case "step":
        this.status(`step ${event.step}/${event.maxSteps}: waiting for the model`);
        break;
      case "tool_call":
        // Whether a field is secret is known only once the call ran: typed text is never shown.
        this.status(
          `${event.name} ${preview(JSON.stringify(redactTypedArg(event.name, event.args)), ARGS_PREVIEW_CHARS)}`,
        );
        break;
      case "tool_result":
        this.line(
          `  ${event.ok ? "ok  " : "FAIL"} ${event.name}: ${preview(event.preview, RESULT_PREVIEW_CHARS)}`,
        );
        break;
      case "nudge":
        this.line(`  note (${event.detector}): ${preview(event.message, RESULT_PREVIEW_CHARS)}`);
        break;
      case "plan":
        this.line(`plan: ${event.plan.goal}`);
        break;
      case "context_trimmed":
        this.line(`  (history trimmed: ${event.summarized} messages summarized)`);
        break;
      default:
        break;
    }
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#clear();
    this.#status = "";
  }

  #draw(): void {
    const frame = SPINNER_FRAMES[this.#frame++ % SPINNER_FRAMES.length];
    this.#out.write(`\r\x1b[2K${frame} ${this.#status}`);
  }

  #clear(): void {
    if (this.#tty) this.#out.write("\r\x1b[2K");
  }
}

function preview(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
