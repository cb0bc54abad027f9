/**
 * Runs the real `webbrain` bin on a pseudo-terminal (util-linux `script`): stdin and stderr are
 * TTYs, as in a person's shell, so the bin asks its questions, and a test answers them as they
 * appear. Used by the security tests; waits are on the bin's own output, never on time.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { BIN } from "./run-cli.js";

/** Quotes one argument for `sh -c` (what `script -c` runs). */
function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

export interface TerminalRun {
  child: ChildProcessWithoutNullStreams;
  /** Everything the terminal showed (stdout and stderr of the bin, and echoed answers). */
  screen(): string;
  /** Types `answer` + Enter once the screen shows `question` for the `nth` time (1-based). */
  answer(question: string | RegExp, nth: number, answer: string): Promise<void>;
  exit: Promise<number | null>;
}

export function runOnTerminal(args: string[], env: Record<string, string> = {}): TerminalRun {
  const command = [process.execPath, BIN, ...args].map(shellQuote).join(" ");
  const child: ChildProcessWithoutNullStreams = spawn("script", ["-qefc", command, "/dev/null"], {
    env: { ...process.env, ...env, TERM: "dumb" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let screen = "";
  const waiters: (() => void)[] = [];
  const onOutput = (chunk: Buffer) => {
    screen += chunk.toString("utf8");
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout.on("data", onOutput);
  child.stderr.on("data", onOutput);
  const exit = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      for (const wake of waiters.splice(0)) wake();
      resolve(code);
    });
  });
  const count = (question: string | RegExp) =>
    typeof question === "string"
      ? screen.split(question).length - 1
      : (screen.match(new RegExp(question.source, "g")) ?? []).length;
  return {
    child,
    // The terminal turns each "\n" into "\r\n".
    screen: () => screen.replaceAll("\r\n", "\n"),
    exit,
    answer: async (question, nth, answer) => {
      while (count(question) < nth) {
        if (child.exitCode !== null) {
          throw new Error(`the run ended before asking ${String(question)} (#${nth}); screen:\n${screen}`);
        }
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
      child.stdin.write(`${answer}\r`);
    },
  };
}
