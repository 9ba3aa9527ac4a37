// Snapshots of the whole state: save one under a name, restore it, list them.
import { fail, ok, validation, type Reply } from '../envelope.js';
import { snapshotNameProblem } from '../snapshots.js';
import type { ControlRequest } from './request.js';

export function saveSnapshot({ rt, body }: ControlRequest): Reply {
  const problem = snapshotNameProblem(body.name);
  if (problem) return validation({ name: [problem] });
  return ok(rt.saveSnapshot(body.name as string), 201);
}

export function restoreSnapshot({ rt, params }: ControlRequest): Reply {
  const name = params[0]!;
  if (snapshotNameProblem(name)) return fail(404, 'Snapshot not found.');
  const info = rt.restoreSnapshot(name);
  return info ? ok(info) : fail(404, 'Snapshot not found.');
}

export const listSnapshots = ({ rt }: ControlRequest): Reply => ok(rt.snapshots.list());
