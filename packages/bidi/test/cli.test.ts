import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { type CliIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, runCli } from "../src/cli.js";

const BIN = fileURLToPath(new URL("../bin/webbrain-bidi.js", import.meta.url));

function captureIo(env: NodeJS.ProcessEnv = process.env): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, env, stdout: (t) => out.push(t), stderr: (t) => err.push(t) };
}

describe("webbrain-bidi CLI", () => {
  it("probe prints the session's browser name and version", async () => {
    const io = captureIo();
    expect(await runCli(["probe"], io)).toBe(EXIT_OK);
    expect(io.out.join("")).toMatch(/^firefox \d+\.\d+/);
  });

  it("probe fails with a clear message and exit 1 when Firefox is missing", async () => {
    const io = captureIo({ ...process.env, FIREFOX_BIN: "/nonexistent/firefox" });
    expect(await runCli(["probe"], io)).toBe(EXIT_FAILED);
    expect(io.err.join("")).toContain('FIREFOX_BIN="/nonexistent/firefox" does not exist');
  });

  it("answers usage errors with exit 2 and the help text", async () => {
    const io = captureIo();
    expect(await runCli(["frobnicate"], io)).toBe(EXIT_USAGE);
    expect(io.err.join("")).toContain("unknown command");
    const bad = captureIo();
    expect(await runCli(["probe", "--timeout", "soon"], bad)).toBe(EXIT_USAGE);
    expect(bad.err.join("")).toContain("--timeout needs a positive whole number");
  });

  it("runs through the bin shim without a build step", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, "--help"]);
    expect(stdout).toContain("Usage: webbrain-bidi <command>");
    const failed = await promisify(execFile)(process.execPath, [BIN, "probe", "--executable", "/nope"]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed).toMatchObject({ code: EXIT_FAILED });
    expect((failed as { stderr: string }).stderr).toContain("/nope");
  });
});
