// Snapshots of the whole state: save one under a name, restore it, list them.
import { fail, ok, validation, type Reply } from '../envelope.js';
import { snapshotNameProblem } from '../snapshots.js';
import type { ControlRequest } from './request.js';

export function saveSnapshot({ rt, body }: ControlRequest): Reply {
  const problem = snapshotNameProblem(body.name);
  if (problem) return validation({ name: [problem] });
  return ok(rt.saveSnapshot(body.name as string), 201);
}

/** The 404 of a restore: which snapshots exist (and how to list them), or how to save one. */
function notFound(rt: ControlRequest['rt'], name: string): Reply {
  const saved = rt.snapshots.list().map((s) => s.name);
  const problem = snapshotNameProblem(name);
  const named = problem ? ` by that name (${problem.replace(/\.$/, '')})` : ` named ${JSON.stringify(name)}`; // a name that is not one is not echoed
  const what = saved.length
    ? `the saved ones are ${saved.slice(0, 20).join(', ')}${saved.length > 20 ? ` and ${saved.length - 20} more` : ''} (\`cardctl mock snapshot list\`)`
    : 'none is saved yet: save one with `cardctl mock snapshot save NAME`';
  return fail(404, `Snapshot not found: no snapshot${named}; ${what}.`);
}

export function restoreSnapshot({ rt, params }: ControlRequest): Reply {
  const name = params[0]!;
  const info = snapshotNameProblem(name) ? null : rt.restoreSnapshot(name);
  return info ? ok(info) : notFound(rt, name);
}

export const listSnapshots = ({ rt }: ControlRequest): Reply => ok(rt.snapshots.list());
