/**
 * Browsers that go away (docs/operations.md "Faults"), each a Fault of fault.ts run by scripts/faults/run.ts:
 * requests and uploads aborted at every stage (mid-head, mid-body, waiting for the upstream,
 * mid-answer). Each abort's label says what the gateway did with the upstream call: closed at
 * once ('... upstream call closed'), kept until the deadline ('... held'), or never made
 * ('... reached the upstream' with the count that did); a connection closed mid-head or
 * mid-body says whether the gateway answered, whether its call reached the upstream and, when
 * it did (a streamed upload), whether that call was closed at once or held.
 *
 * Both hosts run node:http and expect the same labels. (Deno.serve, the handler of `deno task
 * serve:parallel`, reports a vanished caller only for a request that arrived whole in one small
 * read: docs/operations.md "Faults".)
 */
import type { Fault, FaultHost, FaultRunOptions } from '../fault.ts';
import { type FaultScenario, type FaultWorld, repeat, runFault } from '../run.ts';
import { CALLER_CLIENT, FAULT_QUERY, FAULT_UPLOAD, uploadForm } from '../traffic.ts';
import { settles } from '../harness.ts';

/** The upstream deadline of these faults (ms): long enough that only an abort closes a call. */
const ABORT_TIMEOUT_MS = 5_000;
/** How long after an abort the upstream call must be closed to count as "at once" (ms). */
const AT_ONCE_MS = 1_000;
/** How long after a raw connection's close a call it started may still reach the upstream (ms). */
const AFTER_CLOSE_MS = 300;
/** Calls aborted together per round. */
const ROUND = 4;

/** Starts `ROUND` calls, waits until they reached the stand-in, aborts them, labels the outcome. */
async function abortRound(
  world: FaultWorld,
  what: string,
  start: (signal: AbortSignal) => Promise<unknown>,
): Promise<string> {
  const { standIn } = world;
  const abort = new AbortController();
  const calls = Array.from({ length: ROUND }, () => start(abort.signal).catch(() => null));
  // reached: the stand-in holds ROUND of the fault's calls (heads read; bodies whole or not)
  const reached = await settles(() => Promise.resolve(standIn.open), (n) => n >= ROUND, 5_000);
  abort.abort();
  await Promise.all(calls);
  if (!reached.held) {
    await settles(() => Promise.resolve(standIn.open), (n) => n === 0, ABORT_TIMEOUT_MS * 2);
    return `${what}: only ${reached.last} of ${ROUND} calls reached the upstream`;
  }
  const closed = await settles(() => Promise.resolve(standIn.open), (n) => n === 0, AT_ONCE_MS);
  if (closed.held) return `${what}: upstream call closed`;
  // held: wait for the deadline to close it before the next round
  await settles(() => Promise.resolve(standIn.open), (n) => n === 0, ABORT_TIMEOUT_MS * 2);
  return `${what}: upstream call held`;
}

const postFault = (gateway: string, signal: AbortSignal) =>
  fetch(`${gateway}/svc/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: FAULT_QUERY }),
    signal,
    client: CALLER_CLIENT,
  });

const uploadFault = (gateway: string, signal: AbortSignal, body: BodyInit = uploadForm()) =>
  fetch(`${gateway}${FAULT_UPLOAD}`, {
    method: 'POST',
    body,
    signal,
    client: CALLER_CLIENT,
    duplex: 'half', // a streamed request body needs it
  } as RequestInit);

/** A request body that sends 256 KiB and then never ends. */
function stalledBody(): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    pull(controller) {
      if (sent) return new Promise(() => {});
      sent = true;
      controller.enqueue(new Uint8Array(256 * 1024));
    },
  });
}

/**
 * Writes `text` on a raw connection to the gateway, waits 100 ms, reads what the gateway wrote
 * back meanwhile (50 ms more at most), closes, and says what happened: whether the gateway
 * answered (its status line) and whether a call of the fault's reached the stand-in meanwhile
 * (its head read, whole body or not).
 */
async function closeAfter(world: FaultWorld, text: string): Promise<string> {
  const { hostname, port } = new URL(world.gateway.url);
  const reached = world.standIn.heads;
  const conn = await Deno.connect({ hostname, port: Number(port) });
  await conn.write(new TextEncoder().encode(text));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const buffer = new Uint8Array(256);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const read = await Promise.race([
    conn.read(buffer).catch(() => null),
    new Promise<'none'>((resolve) => timer = setTimeout(() => resolve('none'), 50)),
  ]);
  clearTimeout(timer);
  conn.close();
  const answer = typeof read === 'number'
    ? `answered ${new TextDecoder().decode(buffer.subarray(0, read)).split('\r\n')[0]}`
    : read === null
    ? 'closed by the gateway'
    : 'no answer';
  // what the gateway does once the caller is gone comes after the close: watch the stand-in
  // for AFTER_CLOSE_MS before saying nothing reached it
  const after = await settles(
    () => Promise.resolve(world.standIn.heads),
    (n) => n !== reached,
    AFTER_CLOSE_MS,
  );
  if (!after.held) return `${answer}, nothing upstream`;
  // a streamed body (an upload) starts its upstream call at once: it must end with the caller
  const closed = await settles(
    () => Promise.resolve(world.standIn.open),
    (n) => n === 0,
    AT_ONCE_MS,
  );
  if (closed.held) return `${answer}, reached the upstream, call closed`;
  await settles(() => Promise.resolve(world.standIn.open), (n) => n === 0, ABORT_TIMEOUT_MS * 2);
  return `${answer}, reached the upstream, call held`;
}

/** Sends half a request head on a raw connection, then closes it. */
async function halfHead(world: FaultWorld): Promise<string> {
  const head = 'POST /svc/graphql HTTP/1.1\r\nhost: 127.0.0.1\r\n';
  return `closed mid-head: ${await closeAfter(world, head)}`;
}

/**
 * Sends a request head promising 1000 bytes, then the fault's whole GraphQL document (fewer
 * bytes: a body that parses on its own, so only a gateway that waits for the declared length
 * keeps it from the upstream) on a raw connection, then closes.
 */
async function halfBody(world: FaultWorld, what: string, path: string): Promise<string> {
  const { port } = new URL(world.gateway.url);
  const text = `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n` +
    'content-type: application/json\r\ncontent-length: 1000\r\n\r\n' +
    JSON.stringify({ query: FAULT_QUERY });
  return `${what} closed mid-body: ${await closeAfter(world, text)}`;
}

/** Reads the first chunk of an answer, then aborts the call. */
async function abortMidAnswer(
  call: (signal: AbortSignal) => Promise<Response>,
): Promise<string> {
  const abort = new AbortController();
  try {
    const response = await call(abort.signal);
    const reader = response.body!.getReader();
    await reader.read();
    abort.abort();
    await reader.cancel().catch(() => {});
    return `aborted mid-answer (${response.status})`;
  } catch (error) {
    return `error ${(error as Error).name}`;
  }
}

function fault(name: string, scenario: (host: FaultHost) => FaultScenario): Fault {
  return {
    name,
    hosts: ['deno', 'node'],
    run: (host: FaultHost, options: FaultRunOptions) =>
      runFault(name, host, options, scenario(host)),
  };
}

const OPTIONS = { timeoutMs: ABORT_TIMEOUT_MS };

/** Every abort fault of the browser. */
export const browserAbortFaults: Fault[] = [
  fault('browser: aborts while waiting for the upstream', () => ({
    options: OPTIONS,
    expected: ['POST: upstream call closed', 'upload: upstream call closed'],
    async drive(world) {
      world.standIn.mode = { kind: 'stall' };
      const gateway = world.gateway.url;
      await repeat(world.until, world.tally, async () => {
        const post = await abortRound(world, 'POST', (s) => postFault(gateway, s));
        world.tally[post] = (world.tally[post] ?? 0) + 1;
        return await abortRound(world, 'upload', (s) => uploadFault(gateway, s));
      });
    },
  })),
  fault('browser: aborts an upload mid-body', () => ({
    options: OPTIONS,
    expected: ['upload mid-body: upstream call closed'],
    async drive(world) {
      world.standIn.mode = { kind: 'stall' };
      const gateway = world.gateway.url;
      await repeat(
        world.until,
        world.tally,
        () => abortRound(world, 'upload mid-body', (s) => uploadFault(gateway, s, stalledBody())),
      );
    },
  })),
  fault('browser: closes a POST mid-body', () => ({
    options: OPTIONS,
    expected: [
      'POST closed mid-body: no answer, nothing upstream',
      // an upload's body is streamed: its upstream call may have started (then it must end)
      'upload closed mid-body: no answer, nothing upstream',
      'upload closed mid-body: no answer, reached the upstream, call closed',
    ],
    // measured: node:http (both hosts) reads an upload body this small whole first
    required: [
      'POST closed mid-body: no answer, nothing upstream',
      'upload closed mid-body: no answer, nothing upstream',
    ],
    async drive(world) {
      await repeat(world.until, world.tally, async () => {
        const post = await halfBody(world, 'POST', '/svc/graphql?op=Fault');
        world.tally[post] = (world.tally[post] ?? 0) + 1;
        return await halfBody(world, 'upload', FAULT_UPLOAD);
      });
    },
  })),
  fault('browser: closes mid-head', () => ({
    expected: ['closed mid-head: no answer, nothing upstream'],
    drive: (world) => repeat(world.until, world.tally, () => halfHead(world), 2),
  })),
  fault('browser: aborts mid-answer', () => ({
    options: OPTIONS,
    expected: ['aborted mid-answer (200)'],
    async drive(world) {
      world.standIn.mode = { kind: 'large', bytes: 768 * 1024, declared: false };
      const gateway = world.gateway.url;
      await repeat(world.until, world.tally, async () => {
        const post = await abortMidAnswer((s) => postFault(gateway, s));
        world.tally[post] = (world.tally[post] ?? 0) + 1;
        return await abortMidAnswer((s) => uploadFault(gateway, s));
      });
    },
  })),
];
