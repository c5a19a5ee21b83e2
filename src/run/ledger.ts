import { inputError } from "../core/errors.js";
import Database from "better-sqlite3";

/**
 * running: started, not ended (or cut off by kill -9 until a resume marks it interrupted);
 * finished: all requests delivered and the artifacts saved; infra_fault: aborted by a fault outside the
 * agent (retried); failed: aborted by an unexpected harness error (not retried in this invocation);
 * interrupted: the run was stopped (Ctrl-C) or killed while this attempt ran.
 */
export const attemptStatuses = ["running", "finished", "failed", "infra_fault", "interrupted"] as const;
export type AttemptStatus = (typeof attemptStatuses)[number];

export interface AttemptRow {
  session: string;
  attempt: number;
  status: AttemptStatus;
  started_at: string;
  ended_at: string | null;
  detail: string | null;
  invocation: number;
  /** Directory of the attempt's workspaces (removed when the attempt ends, unless kept). */
  work_dir: string;
}

const schema = `
CREATE TABLE IF NOT EXISTS invocations (
  id INTEGER PRIMARY KEY,
  pid INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  resumed INTEGER NOT NULL,
  result TEXT
);
CREATE TABLE IF NOT EXISTS attempts (
  session TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN (${attemptStatuses.map((s) => `'${s}'`).join(", ")})),
  started_at TEXT NOT NULL,
  ended_at TEXT,
  detail TEXT,
  invocation INTEGER NOT NULL,
  work_dir TEXT NOT NULL,
  PRIMARY KEY (session, attempt)
);
`;

const now = () => new Date().toISOString();

/** SQLite's codes (and extended codes) for a file that is not, or no longer, a database. */
const unreadablePrefixes = ["SQLITE_NOTADB", "SQLITE_CORRUPT", "SQLITE_CANTOPEN"];

function unreadableLedger(file: string, e: unknown): Error {
  const code = (e as { code?: unknown }).code;
  if (typeof code !== "string" || !unreadablePrefixes.some((p) => code.startsWith(p))) return e as Error;
  return inputError(file, "", `the run's ledger is unreadable (${(e as Error).message}); restore it from a backup, or start a new run`);
}

/** The run's ledger: which attempt of which session started and how it ended (SQLite, WAL, fsync'd). */
export class Ledger {
  private readonly db: Database.Database;
  private invocation = 0;

  private constructor(file: string, readonly: boolean) {
    this.db = new Database(file, { readonly, fileMustExist: readonly });
    this.db.pragma("busy_timeout = 10000");
    if (!readonly) {
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = FULL");
      this.db.exec(schema);
    }
  }

  /** Opens (or creates) the ledger; one that is not a readable SQLite database is bad input naming the file. */
  static open(file: string): Ledger {
    try {
      return new Ledger(file, false);
    } catch (e) {
      throw unreadableLedger(file, e);
    }
  }

  static openReadonly(file: string): Ledger {
    try {
      return new Ledger(file, true);
    } catch (e) {
      throw unreadableLedger(file, e);
    }
  }

  /** Records this process as an invocation of the run; attempts it starts refer to it. */
  startInvocation(resumed: boolean): number {
    const r = this.db
      .prepare("INSERT INTO invocations (pid, started_at, resumed) VALUES (?, ?, ?)")
      .run(process.pid, now(), resumed ? 1 : 0);
    this.invocation = Number(r.lastInsertRowid);
    return this.invocation;
  }

  endInvocation(result: string): void {
    this.db.prepare("UPDATE invocations SET ended_at = ?, result = ? WHERE id = ?").run(now(), result, this.invocation);
  }

  /** Starts the next attempt of a session and returns its number (1-based). */
  begin(session: string, workDirOf: (attempt: number) => string): number {
    return this.db.transaction(() => {
      const row = this.db.prepare("SELECT COALESCE(MAX(attempt), 0) AS n FROM attempts WHERE session = ?").get(session) as { n: number };
      const attempt = row.n + 1;
      this.db
        .prepare("INSERT INTO attempts (session, attempt, status, started_at, invocation, work_dir) VALUES (?, ?, 'running', ?, ?, ?)")
        .run(session, attempt, now(), this.invocation, workDirOf(attempt));
      return attempt;
    })();
  }

  end(session: string, attempt: number, status: Exclude<AttemptStatus, "running">, detail?: string): void {
    this.db
      .prepare("UPDATE attempts SET status = ?, ended_at = ?, detail = ? WHERE session = ? AND attempt = ?")
      .run(status, now(), detail ?? null, session, attempt);
  }

  /** Marks attempts still `running` (their process was killed) as interrupted and returns them. */
  markInterrupted(detail: string): AttemptRow[] {
    return this.db.transaction(() => {
      const rows = this.db.prepare("SELECT * FROM attempts WHERE status = 'running' ORDER BY session, attempt").all() as AttemptRow[];
      const upd = this.db.prepare("UPDATE attempts SET status = 'interrupted', ended_at = ?, detail = ? WHERE session = ? AND attempt = ?");
      for (const r of rows) upd.run(now(), detail, r.session, r.attempt);
      return rows;
    })();
  }

  attempts(session?: string): AttemptRow[] {
    const sql = "SELECT * FROM attempts" + (session === undefined ? "" : " WHERE session = ?") + " ORDER BY session, attempt";
    const stmt = this.db.prepare(sql);
    return (session === undefined ? stmt.all() : stmt.all(session)) as AttemptRow[];
  }

  finishedSessions(): Set<string> {
    const rows = this.db.prepare("SELECT DISTINCT session FROM attempts WHERE status = 'finished'").all() as { session: string }[];
    return new Set(rows.map((r) => r.session));
  }

  close(): void {
    this.db.close();
  }
}
