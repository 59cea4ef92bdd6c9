/**
 * A CPU profile of one host relaying streams from the flood upstream (docs/benchmarks.md
 * "WebSocket relay": where a relayed frame's CPU goes). Starts the flood upstream, the host with
 * `--cpu-prof` (Node: the built npm package; Deno: hosts/deno/serve.ts) and its plain floor (the
 * floor with the host's legs: floors/mod.ts `startHostLegsRelay`), streams `sockets` x `streams`
 * subscriptions of small or 1 KiB frames through each for `seconds`, prints frames/s and CPU per
 * 100k frames of both, stops both (the runtime writes a profile on exit; the floor is profiled
 * too, so the two can be read side by side) and prints each profile's self time per function and
 * per file (`cpuprofile_summary.ts`). Not part of `deno task bench`: a tool for reading the hot
 * path.
 *
 * `deno run --allow-all scripts/bench/relay_profile.ts <deno|node> [small|1KiB] [SxN] [seconds]`;
 * RELAY_PROFILE_NPM names another built npm package for the Node host (e.g. a copy of main's, to
 * read before and after a change; its folder needs a node_modules beside it).
 */
import { denoRun, type HostKind, ROOT, startChildProcess } from '../host_process.ts';
import { summariseProfile } from './cpuprofile_summary.ts';
import { BENCH_GATEWAY_ENV } from './context.ts';
import { FLOOD_QUERY, SMALL_QUERY } from './flood_upstream.ts';
import { startHostLegsRelay } from './floors/mod.ts';
import { floodPayload } from './relay_streams.ts';
import { RELAY_ENV } from './scenarios/relay.ts';
import { runStreamLoad } from './stream_load.ts';

const TOKEN = 'bench-profile-master-token';

const [kindArg = 'node', sizeArg = 'small', shapeArg = '16x8', secondsArg = '8'] = Deno.args;
const kind = kindArg as HostKind;
const [sockets, streams] = shapeArg.split('x').map(Number);
const seconds = Number(secondsArg);
const query = sizeArg === 'small' ? SMALL_QUERY : FLOOD_QUERY;
const profileDir = await Deno.makeTempDir({ prefix: 'relay-profile-' });
const floorProfileDir = await Deno.makeTempDir({ prefix: 'relay-profile-floor-' });
const wsUrl = (url: string) => url.replace(/^http/, 'ws');

const upstream = await startChildProcess({
  command: denoRun('scripts/bench/flood_upstream.ts'),
  env: { PORT: '0', HOST: '127.0.0.1' },
  ready: /^(http:\/\/\S+)$/,
});
const prof = `--cpu-prof-dir=${profileDir}`;
const [deno, run, ...rest] = denoRun('scripts/bench/relay_profile_deno_host.ts');
const host = await startChildProcess({
  command: kind === 'node'
    ? [
      'node',
      '--cpu-prof',
      prof,
      `${Deno.env.get('RELAY_PROFILE_NPM') ?? `${ROOT}npm`}/bin/svc-gateway.js`,
    ]
    : [deno, run, '--cpu-prof', prof, ...rest],
  env: {
    SVC_TOKEN: TOKEN,
    HOST: '127.0.0.1',
    PORT: '0',
    ...BENCH_GATEWAY_ENV,
    ...RELAY_ENV,
    SVC_API_BASE: upstream.url,
  },
  ready: /listening on (http:\/\/\S+)/,
});
const floor = await startHostLegsRelay(kind, `${wsUrl(upstream.url)}/graphql`, 'plain', [
  '--cpu-prof',
  `--cpu-prof-dir=${floorProfileDir}`,
]);
try {
  const targets = [
    { label: 'plain floor', url: `${wsUrl(floor.url)}/graphql`, pid: floor.pid },
    { label: kind, url: `${wsUrl(host.url)}/svc/graphql`, pid: host.pid },
  ];
  for (const t of targets) {
    const initPayload = t.label === kind ? {} : { authToken: `Bearer ${TOKEN}` };
    const m = await runStreamLoad(
      { ...t, initPayload, payload: floodPayload(query), sockets, streams },
      seconds,
      1,
    );
    console.log(
      `${t.label}: ${m.rps.toFixed(0)} frames/s, ` +
        `${(m.cpuMsPerRequest * 100).toFixed(3)} cpu s per 100k frames, errors ${m.errors}`,
    );
  }
} finally {
  await host.stop();
  await floor.stop();
  await upstream.stop();
}
for (const [label, dir] of [[kind, profileDir], ['plain floor', floorProfileDir]]) {
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    console.log(`profile of the ${label}: ${path}`);
    console.log(summariseProfile(JSON.parse(Deno.readTextFileSync(path)), 45));
  }
}
