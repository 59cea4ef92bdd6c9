/**
 * A refusal answered before the body was read (here 415 for a text/plain body
 * and 403 for a foreign origin, both before step 6 reads anything) must reach a caller that is
 * still sending a large body: the answer goes out, the rest is read and dropped for the oversize
 * rule's bound (SPEC "Size and capacity"), then the connection closes. Both hosts; a fetch client
 * that sends the whole body before it reads (as browsers and undici do); nothing reaches the
 * upstream.
 */
import assert from 'node:assert/strict';
import { assertNothingReached } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

/** Over the 2 MiB GraphQL ceiling, so nothing of it may be buffered. */
const BODY = 'a'.repeat(3 * 1024 * 1024);
const ATTEMPTS = 8;

async function outcomes(url: string, headers: Record<string, string>): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < ATTEMPTS; i++) {
    try {
      // A liveness bound, not a timing assertion: a connection left paused never answers.
      const res = await fetch(`${url}/svc/graphql`, {
        method: 'POST',
        headers,
        body: BODY,
        signal: AbortSignal.timeout(20_000),
      });
      const body = await res.json();
      const code = body.errors?.[0]?.extensions?.code;
      seen.push(`${res.status} ${code} connection: ${res.headers.get('connection')}`);
    } catch (error) {
      seen.push(`failed: ${(error as Error).message}`);
    }
  }
  return seen;
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] early refusals reach a caller still sending a large body`, async (t) => {
    const env = { ALLOWED_ORIGINS: 'https://app.example.com' };
    await withGateway(kind, { env }, async ({ sandbox, gateway }) => {
      await t.step('415 for a text/plain body', async () => {
        await assertNothingReached(sandbox, async () => {
          const seen = await outcomes(gateway.url, { 'content-type': 'text/plain' });
          assert.deepEqual(
            seen,
            Array(ATTEMPTS).fill('415 UnsupportedMediaType connection: close'),
          );
        });
      });
      await t.step('403 for an origin not allowed', async () => {
        await assertNothingReached(sandbox, async () => {
          const seen = await outcomes(gateway.url, {
            'content-type': 'application/json',
            origin: 'https://elsewhere.example.org',
          });
          assert.equal(new Set(seen).size, 1, seen.join('; '));
          assert.match(seen[0], /^403 \w+ connection: close$/);
        });
      });
    });
  });
}
