// One keep-alive undici Agent per process, created on first use (undici is heavy to import).
import type { Agent } from 'undici';

let agent: Promise<Agent> | undefined;

export function getAgent(): Promise<Agent> {
  agent ??= import('undici').then(({ Agent: A }) => new A({ keepAliveTimeout: 10_000, connections: 16 }));
  return agent;
}

/** Closes the keep-alive sockets so the process can exit at once. */
export async function closeAgent(): Promise<void> {
  if (!agent) return;
  const a = await agent;
  agent = undefined;
  await a.close().catch(() => a.destroy());
}
