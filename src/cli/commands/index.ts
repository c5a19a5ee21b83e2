import type { Command } from "commander";
import { registerTasks } from "./tasks.js";
import { registerSessions } from "./sessions.js";
import { registerDemo } from "./demo.js";
import { registerHandoff } from "./handoff.js";
import { registerReport } from "./report.js";
import { registerRun } from "./run.js";
import { registerVerify } from "./verify.js";
import { registerRcm } from "./rcm.js";
import { registerMockModel } from "./mock-model.js";
import { registerQueue } from "./queue.js";
import { registerAgents } from "./agents.js";
import { registerDatasets } from "./datasets.js";
import { registerDoctor } from "./doctor.js";
import { registerExport } from "./export.js";

/** Every command group; each module adds its own subcommands and options. */
export function registerCommands(program: Command): void {
  registerTasks(program);
  registerDatasets(program);
  registerSessions(program);
  registerDemo(program);
  registerHandoff(program);
  registerReport(program);
  registerExport(program);
  registerRun(program);
  registerVerify(program);
  registerRcm(program);
  registerMockModel(program);
  registerQueue(program);
  registerAgents(program);
  registerDoctor(program);
}
