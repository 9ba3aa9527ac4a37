// Whether a process runs, from its pid: the check each lock file's reader makes of its holder
// (the journal's and keys' locks, the mock's state lock, the record of a running mock). No
// import of the project: client, mock and cli all use it.

/** Whether a process with this pid runs (EPERM: it runs, as another user). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
