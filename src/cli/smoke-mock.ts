// `cardctl smoke --mock`: the smoke test against an embedded mock, started in this process on
// a free loopback port the way `cardctl demo` starts one, with its test key, at the default
// product's minimum; closed afterwards. Lives in src/cli because the client never imports the mock.
import type { SmokeOptions, SmokeReport } from '../client/smoke/index.js';

export interface MockSmokeIO {
  /** one line for people, on stderr */
  note: (line: string) => void;
}

export async function smokeAgainstMock(opts: SmokeOptions, io: MockSmokeIO): Promise<SmokeReport> {
  const [{ startMock }, { smoke }] = await Promise.all([
    import('../mock/index.js'),
    import('../client/smoke/index.js'),
  ]);
  const mock = await startMock({ port: 0 });
  try {
    const min = mock.products.find((p) => p.default)?.min_initial_load_minor;
    const credentials = {
      name: 'mock',
      source: 'flag' as const,
      keyId: mock.keys.test.keyId,
      secret: mock.keys.test.secret,
      mode: 'test' as const,
      baseUrl: mock.baseUrl,
    };
    // A customer registered beforehand (outside the smoke test's requests): a fresh mock would
    // otherwise hold only the smoke test's own, and `list` would have no next page to follow.
    await registerCustomer(credentials);
    io.note(`smoke: embedded mock at ${mock.baseUrl}, test key ${mock.keys.test.keyId}`);
    return await smoke({ ...opts, amount: opts.amount ?? min, credentials });
  } finally {
    await mock.close();
  }
}

async function registerCustomer(credentials: import('../profiles/types.js').Credentials): Promise<void> {
  const [{ ApiClient }, { smokeCustomer }] = await Promise.all([
    import('../client/client.js'),
    import('../client/smoke/customer.js'),
  ]);
  await new ApiClient({ credentials, retries: 0, journal: null }).send({
    method: 'POST',
    path: '/customers',
    json: smokeCustomer('mock-seed'),
  });
}
