/**
 * askHidden's order of operations on a terminal: echo goes off before the question is written,
 * so an answer typed or pasted the moment the question shows is never echoed (seen under load
 * in security-secrets.test.ts: the terminal showed a secret typed right after its prompt).
 */
import { EventEmitter } from "node:events";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { askHidden, type RawInput } from "../src/run/terminal-prompts.js";

/** A terminal's stdin and stderr that log, in one list, every mode change and every write. */
function fakeTerminal() {
  const log: string[] = [];
  const input = Object.assign(new EventEmitter(), {
    isTTY: true,
    setRawMode: (raw: boolean) => log.push(`raw ${raw}`),
    resume: () => log.push("resume"),
    pause: () => log.push("pause"),
  }) as unknown as RawInput & EventEmitter;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log.push(`write ${JSON.stringify(chunk.toString())}`);
      done();
    },
  });
  return { log, input, output };
}

describe("askHidden on a terminal", () => {
  it("turns echo off before it writes the question, and back on after the answer", async () => {
    const { log, input, output } = fakeTerminal();
    const answer = askHidden(input, output, "password: ");
    // The answer arrives in the same tick as the question: as a paste or a fast typist would.
    input.emit("data", "s3cret\r");
    await expect(answer).resolves.toBe("s3cret");
    expect(log).toEqual(["raw true", "resume", 'write "password: "', "raw false", "pause", 'write "\\n"']);
  });

  it("drops a character on backspace and rejects on Ctrl-C, echo restored either way", async () => {
    const { log, input, output } = fakeTerminal();
    const typed = askHidden(input, output, "code: ");
    input.emit("data", "12x\u007f3\r");
    await expect(typed).resolves.toBe("123");
    const cancelled = askHidden(input, output, "code: ");
    input.emit("data", "\u0003");
    await expect(cancelled).rejects.toThrow(/cancelled/);
    expect(log.filter((entry) => entry.startsWith("raw"))).toEqual([
      "raw true",
      "raw false",
      "raw true",
      "raw false",
    ]);
  });
});
