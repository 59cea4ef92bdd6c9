import { createServer, request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { Buffer } from 'node:buffer';
/**
 * Runs a host as its own process (the real `deno task serve` entry or the npm
 * bin under Node) and reads its startup lines.
 */

/** A host process: its printed lines, its URL once listening, its exit. */
export interface HostProcess {
  lines: string[];
  url: string | null;
  /** Resolves with the exit code (after stop() or by itself). */
  exited: Promise<number>;
  stop(): Promise<void>;
}

const ROOT = new URL('../../', import.meta.url).pathname;

/** The command lines of the two host entry points. */
export const ENTRY = {
  deno: ['deno', [
    'run',
    '--allow-net',
    '--allow-env',
    '--allow-read',
    `${ROOT}hosts/deno/serve.ts`,
  ]],
  node: ['node', [`${ROOT}npm/bin/svc-gateway.js`]],
} as const;

/**
 * Starts `kind`'s entry with exactly `env` (no inherited environment but PATH
 * and HOME) in `cwd`; resolves when it printed `listening on` or exited.
 */
export async function startHostProcess(
  kind: keyof typeof ENTRY,
  env: Record<string, string>,
  cwd: string = ROOT,
): Promise<HostProcess> {
  const [command, args] = ENTRY[kind];
  const child = new Deno.Command(command, {
    args: [...args],
    cwd,
    env: { PATH: Deno.env.get('PATH') ?? '', HOME: Deno.env.get('HOME') ?? '/root', ...env },
    clearEnv: true,
    stdout: 'piped',
    stderr: 'piped',
  }).spawn();
  const lines: string[] = [];
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let url: string | null = null;
  while (url === null) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      const match = line.match(/listening on (http:\/\/\S+)/);
      if (match) url = match[1];
    }
  }
  const drain = (async () => {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      lines.push(...value.split('\n').filter((l) => l !== ''));
    }
  })();
  const stderr = child.stderr.pipeTo(new WritableStream());
  const exited = child.status.then(async (s) => {
    await drain.catch(() => {});
    await stderr.catch(() => {});
    return s.code;
  });
  return {
    lines,
    url,
    exited,
    stop: async () => {
      try {
        child.kill('SIGTERM');
      } catch { /* already gone */ }
      await exited;
    },
  };
}

/**
 * A forward HTTP proxy on loopback (absolute-form requests and CONNECT
 * tunnels, as undici uses) that records the targets it was asked for.
 */
export async function startForwardProxy(): Promise<
  { url: string; seen: string[]; close(): Promise<void> }
> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const target = new URL(req.url ?? '/');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req, client: Duplex, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const tunnel = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      tunnel.write(head);
      tunnel.pipe(client);
      client.pipe(tunnel);
    });
    tunnel.on('error', () => client.destroy());
    client.on('error', () => tunnel.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
