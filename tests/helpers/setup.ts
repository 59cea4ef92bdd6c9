/**
 * One sandbox upstream plus one gateway (on the host under test) for a test.
 */
import { type Sandbox, SANDBOX_TOKEN, startSandbox } from '../../scripts/sandbox/mod.ts';
import type { Env } from '../../mod.ts';
import { type Gateway, type GatewayKind, startGateway, type TestOptions } from './gateway.ts';

/** What a test body receives. */
export interface Setup {
  sandbox: Sandbox;
  gateway: Gateway;
}

/** The environment of a gate-off gateway pointed at `sandbox`. */
export function sandboxEnv(sandbox: Sandbox, extra: Env = {}): Env {
  return { SVC_TOKEN: SANDBOX_TOKEN, SVC_API_BASE: sandbox.url, ...extra };
}

/**
 * Starts a sandbox and a gateway on `kind` (env: the sandbox's, then `env`),
 * runs `body`, and stops both whatever happens.
 */
export async function withGateway(
  kind: GatewayKind,
  setup: { env?: Env; options?: TestOptions },
  body: (s: Setup) => Promise<void>,
): Promise<void> {
  const sandbox = await startSandbox();
  let gateway: Gateway | null = null;
  try {
    gateway = await startGateway(kind, setup.options ?? {}, sandboxEnv(sandbox, setup.env));
    await body({ sandbox, gateway });
  } finally {
    await gateway?.stop();
    await sandbox.close();
  }
}
