/**
 * A Node script of this repo run as a child process, as a person runs a bin: this process's Node
 * and environment (plus `env`), stdin given and closed, stdout and stderr collected. The runner's
 * tests run `webbrain` through it (runner/test/run-cli.ts); the add-on's tests run the runner's
 * bin by path with it, since a package's tests may not import another package's test helpers.
 */
import { type ChildProcess, spawn } from "node:child_process";

export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ScriptOptions {
  stdin?: string;
  env?: Record<string, string>;
  /** Called with all of stderr so far, each time more arrives. */
  onStderr?: (text: string) => void;
}

/** A child still running: signal it (`child.kill("SIGINT")`), then await `done`. */
export interface StartedScript {
  child: ChildProcess;
  done: Promise<ScriptRun>;
}

export function startNodeScript(script: string, args: string[], opts: ScriptOptions = {}): StartedScript {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...opts.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const done = new Promise<ScriptRun>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      opts.onStderr?.(stderr);
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? "");
  });
  return { child, done };
}

export function runNodeScript(script: string, args: string[], opts: ScriptOptions = {}): Promise<ScriptRun> {
  return startNodeScript(script, args, opts).done;
}
