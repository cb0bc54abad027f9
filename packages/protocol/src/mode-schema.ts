/** A mode as a tool argument (schedule_task's `mode`): one literal per MODES entry. */
import { type TSchemaOptions, Type } from "typebox";
import { MODES } from "./modes.js";

export function modeSchema(options: TSchemaOptions = {}) {
  return Type.Union(
    MODES.map((mode) => Type.Literal(mode)),
    options,
  );
}
