/**
 * 0 success, 1 a check found problems, 2 bad usage or bad input, 3 an internal error (a bug),
 * 4 the machine stopped the work (a full disk): finished work is kept; free space, then run again or --resume.
 */
export const ExitCode = { ok: 0, checkFailed: 1, badInput: 2, internal: 3, diskFull: 4 } as const;
