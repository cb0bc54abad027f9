/**
 * A mode as a tool argument (schedule_task's `mode`). A plain `enum`, not a union of literals:
 * the schema goes to the model on every call, and the enum is the shorter way to say it.
 */
import { type TSchemaOptions, Type } from "typebox";
import { MODES } from "./modes.js";

export function modeSchema(options: TSchemaOptions = {}) {
  return Type.Enum([...MODES], options);
}
