/** 0 success, 1 a check found problems, 2 bad usage or bad input, 3 an internal error (a bug). */
export const ExitCode = { ok: 0, checkFailed: 1, badInput: 2, internal: 3 } as const;
