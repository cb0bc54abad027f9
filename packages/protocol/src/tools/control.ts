/** Control: ending, pausing or scheduling the turn, and asking the person. */
import { Type } from "typebox";
import { modeSchema } from "../mode-schema.js";
import { tool } from "./contract.js";
import { examplePageUrl } from "./example.js";
import { AGENT_SAID } from "./result-shapes.js";
import {
  ACTING,
  AGENT,
  AGENT_SCHEDULER,
  EVERYWHERE,
  optNum,
  optStr,
  PORT,
  SCHEDULE_AFTER_SECONDS,
  SCHEDULE_RUN_AT,
  str,
} from "./shorthands.js";

export const CONTROL_TOOLS = [
  tool("schedule_task", {
    kind: "control",
    description:
      "Schedule a standalone task to run later, once or every N minutes, in this tab or in a background tab on a URL. Only when the user explicitly asks for scheduled or recurring work.",
    parameters: Type.Object({
      title: optStr("Short name shown in the job list."),
      prompt: str("The full task, written as the user would ask it."),
      // `type` may be left out: interval_minutes means recurring, else once (job-input.ts).
      schedule: Type.Object({
        type: Type.Optional(Type.Enum(["once", "recurring"])),
        after_seconds: optNum(SCHEDULE_AFTER_SECONDS),
        run_at: optStr(SCHEDULE_RUN_AT),
        interval_minutes: optNum("For recurring: minutes between runs."),
      }),
      target: Type.Optional(
        Type.Object(
          {
            type: Type.Optional(Type.Enum(["current_tab", "url"])),
            url: optStr(),
          },
          {
            description:
              'Where it runs: {"type":"current_tab"} (default) or {"type":"url","url":"https://..."}.',
          },
        ),
      ),
      mode: Type.Optional(modeSchema({ description: "Default act (never above this chat's)." })),
    }),
    details: AGENT_SAID,
    offer: EVERYWHERE,
    needs: [],
    runs: AGENT_SCHEDULER,
    result: "agent",
    example: {
      title: "Conformance",
      prompt: "Read the conformance page again",
      schedule: { type: "once", after_seconds: 3_600 },
      target: { type: "url", url: examplePageUrl() },
    },
  }),
  tool("schedule_resume", {
    kind: "control",
    description:
      "Pause this task and resume it later in this tab, when it waits on something external (a build, an email, a deploy). Ends the current run.",
    parameters: Type.Object({
      after_seconds: optNum(SCHEDULE_AFTER_SECONDS),
      run_at: optStr(SCHEDULE_RUN_AT),
      reason: str("What the task is waiting for."),
      resume_instruction: optStr("What to do first when it resumes."),
    }),
    details: AGENT_SAID,
    offer: ACTING,
    needs: [],
    runs: AGENT_SCHEDULER,
    result: "agent",
    example: { reason: "waiting for the conformance report", after_seconds: 3_600 },
  }),
  tool("pause_for_user", {
    kind: "control",
    description:
      "Hand the browser to the person at hand for what only they can do (log in, captcha, 2FA); waits until they resume.",
    parameters: Type.Object({ message: str("what to do, e.g. Solve the captcha, then press Enter") }),
    details: Type.Object({
      message: Type.String(),
      resumed: Type.Boolean(),
      said: optStr(),
      url: optStr(),
    }),
    offer: ACTING,
    needs: ["person_at_hand"],
    runs: PORT,
    result: "agent",
    example: { message: "Solve the captcha, then press Enter." },
  }),
  tool("clarify", {
    kind: "control",
    description: "Ask the user one question and wait.",
    parameters: Type.Object({ question: str() }),
    details: AGENT_SAID,
    offer: ACTING,
    needs: [],
    runs: AGENT,
    result: "agent",
    example: { question: "Which voucher?" },
  }),
  tool("done", {
    kind: "control",
    description: "Finish: say what was done and how you verified it.",
    parameters: Type.Object({ summary: str() }),
    details: AGENT_SAID,
    offer: ACTING,
    needs: [],
    runs: AGENT,
    result: "agent",
    example: { summary: "Called every tool once; the status line shows each effect." },
  }),
] as const;
