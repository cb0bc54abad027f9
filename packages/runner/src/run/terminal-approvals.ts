/**
 * Plan before Act and permission prompts on the terminal, for `webbrain run --plan / --confirm`.
 * Questions go to stderr and answers come from stdin, so stdout stays the answer's alone.
 */
import { createInterface } from "node:readline/promises";
import { type PermissionApprover, type Plan, type PlanApprover, planAsText } from "@webbrain/agent";

export interface TerminalApprovals {
  plan: PlanApprover;
  permission: PermissionApprover;
  close(): void;
}

export function terminalApprovals(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): TerminalApprovals {
  const rl = createInterface({ input, output, terminal: false });
  const ask = async (question: string) => (await rl.question(question)).trim().toLowerCase();
  return {
    plan: async (plan: Plan) => {
      output.write(`\n${planAsText(plan)}\n`);
      const answer = await ask("Approve this plan? [y/N, or type feedback] ");
      if (answer === "y" || answer === "yes") return { approved: true };
      return {
        approved: false,
        ...(answer && answer !== "n" && answer !== "no" ? { feedback: answer } : {}),
      };
    },
    permission: async (request) => {
      const answer = await ask(`Allow ${request.detail} on ${request.origin}? [o]nce / [a]lways / [d]eny: `);
      if (answer.startsWith("a")) return "always";
      if (answer.startsWith("o") || answer === "y" || answer === "yes") return "once";
      return "deny";
    },
    close: () => rl.close(),
  };
}
