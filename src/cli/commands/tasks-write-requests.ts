import { statSync } from "node:fs";
import type { Command } from "commander";
import { inputError } from "../../core/errors.js";
import { writeRequestsInManifest } from "../../mine/write-manifest-requests.js";
import { writeRequestsInDataset } from "../../mine/write-requests.js";
import { collect, parseRepoSources } from "../options.js";
import { addWriterOptions, reportWriting, writerFromFlags, type WriterFlags } from "../writer-model.js";

interface Flags extends WriterFlags {
  out?: string;
  repo?: string[];
}

function kindOf(path: string): "dataset" | "manifest" {
  try {
    return statSync(path).isDirectory() ? "dataset" : "manifest";
  } catch {
    throw inputError(path, "", "not found (a dataset directory or a manifest.json)");
  }
}

/** The command that resumes this run: the same arguments again. */
function resumeCommand(): string {
  return ["switch-swe", ...process.argv.slice(2)].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(" ");
}

/** `tasks write-requests DATASET|MANIFEST --writer-model PROVIDER:MODEL [--out MANIFEST] [--repo NAME=PATH|URL]`. */
export function addWriteRequestsCommand(tasks: Command): void {
  const cmd = tasks
    .command("write-requests")
    .description(
      "rewrite each stage's request text as a user's request with a writer model, never mentioning the solution (checked); " +
        "in a dataset (task.json files and its manifest.json) or in a manifest (patches derived from its repositories)",
    )
    .argument("<dataset|manifest>", "dataset directory (written in place) or manifest.json")
    .option("--out <manifest>", "manifest to write (default: the input manifest, in place); an existing one is resumed")
    .option("--repo <name=path|url>", "for a manifest: clone this repository from a local clone, mirror or bundle (repeatable)", collect);
  addWriterOptions(cmd, true).action(async (target: string, o: Flags) => {
    const kind = kindOf(target);
    if (kind === "dataset" && (o.out !== undefined || o.repo !== undefined))
      throw inputError(o.out !== undefined ? "--out" : "--repo", "", "only for a manifest; a dataset directory is written in place");
    const writer = (await writerFromFlags(o))!;
    const onLine = (l: string) => process.stderr.write(`${l}\n`);
    const summary =
      kind === "dataset"
        ? await writeRequestsInDataset(target, { writer, onLine })
        : await writeRequestsInManifest({
            manifestFile: target,
            writer,
            onLine,
            ...(o.out !== undefined ? { out: o.out } : {}),
            ...(o.repo ? { sources: parseRepoSources(o.repo) } : {}),
          });
    process.exitCode = reportWriting(kind === "dataset" ? target : (o.out ?? target), summary, resumeCommand());
  });
}
