/**
 * Questions `webbrain workflow run` asks on a terminal before Firefox starts: whether to run a
 * workflow file nobody approved yet, and the value of a secret parameter (typed without echo,
 * so it is not on the screen or in a terminal log). Questions go to stderr; stdout stays the
 * answer's.
 */
import { createInterface } from "node:readline/promises";

/** y/yes is yes; anything else (Enter included) is no. */
export async function askYesNo(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  question: string,
): Promise<boolean> {
  const rl = createInterface({ input, output, terminal: false });
  try {
    const answer = (await rl.question(question)).trim().toLowerCase();
    return answer === "y" || answer === "yes";
  } finally {
    rl.close();
  }
}

export interface RawInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?: (raw: boolean) => unknown;
}

const ENTER = new Set(["\r", "\n"]);
const BACKSPACE = new Set(["\u007f", "\b"]);
const CTRL_C = "\u0003";
const CTRL_D = "\u0004";

/**
 * One line read with the terminal's echo off. Ctrl-C or Ctrl-D rejects (nothing typed is kept).
 * Without a terminal (a pipe) the line is read as it comes: a pipe echoes nothing anyway.
 */
export async function askHidden(
  input: RawInput,
  output: NodeJS.WritableStream,
  question: string,
): Promise<string> {
  if (!input.isTTY || typeof input.setRawMode !== "function") {
    const rl = createInterface({ input, output, terminal: false });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  }
  // Echo off before the question shows: an answer typed (or pasted) the moment it appears must
  // never reach the screen.
  input.setRawMode(true);
  input.resume();
  output.write(question);
  try {
    return await new Promise<string>((resolve, reject) => {
      let typed = "";
      const onData = (chunk: Buffer | string) => {
        for (const char of chunk.toString()) {
          if (ENTER.has(char)) {
            input.off("data", onData);
            resolve(typed);
            return;
          }
          if (char === CTRL_C || char === CTRL_D) {
            input.off("data", onData);
            reject(new Error("the question was cancelled"));
            return;
          }
          if (BACKSPACE.has(char)) typed = typed.slice(0, -1);
          else typed += char;
        }
      };
      input.on("data", onData);
    });
  } finally {
    input.setRawMode(false);
    input.pause();
    output.write("\n");
  }
}
