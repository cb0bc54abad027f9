import { describe, expect, it } from "vitest";
import { formatCommandHelp, parseCommandArgs } from "../src/cli/argv-parser.js";
import { COMMANDS, runCommand, screenshotCommand, snapshotCommand } from "../src/cli/command-specs.js";
import { UsageError } from "../src/errors.js";

function parsed<T>(outcome: T): Exclude<T, { help: true }> {
  if ((outcome as { help: boolean }).help) throw new Error("expected a parse, got help");
  return outcome as Exclude<T, { help: true }>;
}

describe("parseCommandArgs", () => {
  it("reads positionals, typed values, --flag=value and short flags", () => {
    const run = parsed(
      parseCommandArgs(runCommand, [
        "do it",
        "--mode",
        "ask",
        "--max-steps=7",
        "--json",
        "--base-url",
        "http://x:1",
      ]),
    );
    expect(run.positionals).toEqual(["do it"]);
    expect(run.options).toEqual({ mode: "ask", "max-steps": 7, json: true, "base-url": "http://x:1" });
    const shot = parsed(parseCommandArgs(screenshotCommand, ["http://a", "-o", "a.png", "--full"]));
    expect(shot.options).toEqual({ out: "a.png", full: true });
  });

  it("refuses an integer past its upper bound, naming the flag and the bound", () => {
    expect(() => parseCommandArgs(runCommand, ["t", "--request-timeout", "3601"])).toThrow(
      /--request-timeout must be at most 3600 \(got 3601\)/,
    );
    expect(parsed(parseCommandArgs(runCommand, ["t", "--request-timeout", "3600"])).options).toEqual({
      "request-timeout": 3600,
    });
  });

  it("answers help before any other check", () => {
    expect(parseCommandArgs(runCommand, ["--bogus", "--help"])).toEqual({ help: true });
    expect(parseCommandArgs(snapshotCommand, ["-h"])).toEqual({ help: true });
  });

  it.each([
    [["task", "--bogus"], /Unknown flag --bogus/],
    [["task", "--mode", "write"], /--mode must be one of ask, act, dev \(got "write"\)/],
    [["task", "--max-steps", "0"], /--max-steps must be at least 1/],
    [["task", "--max-steps", "many"], /--max-steps needs a whole number/],
    [["task", "--model"], /--model needs a value/],
    [["task", "--json=yes"], /--json takes no value/],
    [[], /Missing <task>/],
    [["two", "words"], /Unexpected argument "words".*quote a task/],
  ])("rejects %j with a usage error that points at --help", (argv, message) => {
    let error: unknown;
    try {
      parseCommandArgs(runCommand, argv);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain("webbrain run --help");
  });

  it("treats everything after -- as positionals", () => {
    const run = parsed(parseCommandArgs(runCommand, ["--", "--not-a-flag"]));
    expect(run.positionals).toEqual(["--not-a-flag"]);
  });
});

describe("formatCommandHelp", () => {
  it("lists every flag of every command with its help line", () => {
    for (const command of COMMANDS) {
      const help = formatCommandHelp(command);
      expect(help).toContain(`Usage: webbrain ${command.name}`);
      for (const [name, option] of Object.entries(command.options)) {
        const flag = new RegExp(`^  (-\\w, )?--${name}( |$)`);
        const line = help.split("\n").find((l) => flag.test(l));
        expect(line, `--${name} in ${command.name} help`).toContain(option.help);
      }
    }
  });
});
