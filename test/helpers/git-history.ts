import { join } from "node:path";
import { git, writeFiles } from "../verify/fixture.js";

/**
 * A git repository `name` under `root`, for tests that write a small history: `init` makes it
 * (branch main); `commit` writes files into it, commits everything with the message and returns
 * the new commit's id.
 */
export function gitHistory(
  root: string,
  name: string,
): { repo: string; init: () => void; commit: (message: string, files: Record<string, string>) => string } {
  const repo = join(root, name);
  return {
    repo,
    init: () => {
      git(root, "init", "-q", "-b", "main", repo);
    },
    commit: (message, files) => {
      writeFiles(repo, files);
      git(repo, "add", "-A");
      git(repo, "commit", "-qm", message);
      return git(repo, "rev-parse", "HEAD").trim();
    },
  };
}
