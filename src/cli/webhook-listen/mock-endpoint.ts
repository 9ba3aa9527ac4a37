// --mock: the listener finds the running mock, registers itself there as a webhook endpoint,
// and removes itself when it stops, so the mock does not keep retrying a closed port.
import type { ControlTarget } from '../mock/control-client.js';
import type { ListenOptions } from './options.js';

/** The mock of the profile in use (-p, else CARDCTL_PROFILE), whose webhook secret verifies: a newer mock signs with another. */
export async function findMock(opts: ListenOptions, env: NodeJS.ProcessEnv): Promise<ControlTarget> {
  const { resolveControl } = await import('../mock/control-client.js');
  return resolveControl({ controlUrl: opts.controlUrl, profile: opts.profile, envProfile: true }, env);
}

/** The endpoint's id (null if the mock gave none). */
export async function registerOnMock(
  control: ControlTarget,
  url: string,
  stderr: NodeJS.WritableStream,
): Promise<string | null> {
  const { callControl } = await import('../mock/control-client.js');
  const ep = (await callControl(control, 'POST', '/webhook-endpoints', { url })) as {
    id?: string;
    merchant_id?: string;
  };
  const endpointId = ep.id ?? null;
  stderr.write(
    `Registered ${url} on the mock at ${control.url} as webhook endpoint ${endpointId} (merchant ${ep.merchant_id ?? '?'}).\n`,
  );
  return endpointId;
}

/** Never throws: when the mock cannot be reached, says how to remove the endpoint later. */
export async function removeFromMock(
  control: ControlTarget,
  endpointId: string,
  stderr: NodeJS.WritableStream,
): Promise<void> {
  const { callControl } = await import('../mock/control-client.js');
  try {
    await callControl(control, 'DELETE', `/webhook-endpoints/${encodeURIComponent(endpointId)}`);
    stderr.write(`Removed webhook endpoint ${endpointId} from the mock.\n`);
  } catch (err) {
    stderr.write(
      `Endpoint ${endpointId} stays registered on the mock (${(err as Error).message.replace(/\.$/, '')}): remove it with \`cardctl mock webhook-endpoints remove ${endpointId}\`.\n`,
    );
  }
}
