/**
 * The 'targets' scenario's pieces (scripts/bench/): the fixed-answer upstream as its own process,
 * nginx in front of it injecting the authorization (ignored, with SKIPPED and the reason
 * printed, only when no nginx binary is installed; one that does not start fails), and the
 * per-round figures folded into min..max. No speed is asserted.
 */
import assert from 'node:assert/strict';
import { nginxMissing, startNginx } from '../scripts/bench/nginx.ts';
import { fixedAnswer } from '../scripts/bench/fixed_upstream.ts';
import type { Measurement } from '../scripts/bench/scenario.ts';
import { startFixedUpstream, summarise, targetsBody } from '../scripts/bench/scenarios/targets.ts';
import { WORLD_IDS } from '../scripts/sandbox/mod.ts';

Deno.test('fixed upstream answers every POST with the fixed JSON', async () => {
  const upstream = await startFixedUpstream();
  try {
    const answer = await direct(upstream.url);
    assert.deepEqual(answer, JSON.parse(new TextDecoder().decode(fixedAnswer())));
    assert.equal(answer.data.bot.id, WORLD_IDS.bot1);
    assert.deepEqual(answer.data.currentUser.workspaces[0].bots, [{ id: WORLD_IDS.bot1 }]);
  } finally {
    await upstream.stop();
  }
});

const noNginx = nginxMissing();
if (noNginx) console.log(`SKIPPED: nginx injects the token: ${noNginx}`);

Deno.test({
  name: 'nginx injects the token in front of the fixed upstream',
  ignore: noNginx !== null, // counted as ignored, never as passed
  async fn() {
    const upstream = await startFixedUpstream();
    try {
      const answer = await direct(upstream.url);
      // a binary that does not start throws here: a failure, not a skip
      const nginx = await startNginx(upstream.url, 'bench-token');
      if ('skipped' in nginx) return assert.fail(nginx.skipped);
      try {
        const through = await fetch(`${nginx.url}/graphql`, {
          method: 'POST',
          body: targetsBody(),
        });
        assert.equal(through.status, 200);
        assert.deepEqual(await through.json(), answer);
      } finally {
        await nginx.stop();
      }
    } finally {
      await upstream.stop();
    }
  },
});

/** The fixed upstream's answer to a POST straight to it. */
async function direct(url: string) {
  const res = await fetch(`${url}/graphql?op=BotName`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: targetsBody(),
  });
  assert.equal(res.status, 200);
  return await res.json();
}

Deno.test('summarise: per-round ratios against that round direct, min..max', () => {
  const m = (rps: number, p50Ms: number, p99Ms: number, cpu: number): Measurement => ({
    target: 'x',
    connections: 1,
    requests: rps,
    non2xx: 0,
    statuses: {},
    errors: 0,
    durationS: 1,
    rps,
    p50Ms,
    p99Ms,
    meanMs: p50Ms,
    cpuMsPerRequest: cpu,
  });
  const round = (directRps: number, gwRps: number) =>
    new Map([
      ['direct@32', m(directRps, 1, 2, 0.01)],
      ['gw@32', m(gwRps, 2, 4, 0.1)],
      ['direct@1', m(100, 0.1, 0.3, 0.01)],
      ['gw@1', m(50, 0.4, 0.9, 0.2)],
    ]);
  const rows = summarise([round(1000, 500), round(1000, 250)], ['gw']);
  const ratio = rows.find((r) => r.subject === 'gw' && r.figure === 'c=32 req/s x direct')!;
  assert.deepEqual([ratio.min, ratio.max, ratio.values], [0.25, 0.5, [0.5, 0.25]]);
  const p50 = rows.find((r) => r.figure === 'c=1 added p50 ms')!;
  assert.ok(Math.abs(p50.min - 0.3) < 1e-9);
  const p99x = rows.find((r) => r.figure === 'c=1 p99 x direct')!;
  assert.ok(Math.abs(p99x.max - 3) < 1e-9);
  const cpu = rows.find((r) => r.subject === 'gw' && r.figure.startsWith('cpu'))!;
  assert.equal(cpu.max, 1);
});
