/**
 * nginx as the bench's anchor (docs/benchmarks.md "The gateway's own cost"): `proxy_pass` to an upstream (the fixed-answer one in
 * `targets`, the sandbox in `relay`) over keep-alive connections with the authorization header
 * injected, WebSocket upgrades passed through (frames relayed as bytes, never parsed), one
 * worker, no master process (so the measured pid is the process doing the work), in the
 * foreground from a fresh temporary prefix, listening on 127.0.0.1. Debian's `nginx-light` is
 * enough (`apt-get install nginx-light`); when no nginx binary is found, `startNginx` answers
 * the reason it was skipped instead, and when one is found but does not start, it throws.
 */
import { existsSync } from 'node:fs';
import { portIsFree } from '../host_process.ts';

/** A running nginx. */
export interface NginxProcess {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/** Where an nginx binary is looked for (Debian puts it in /usr/sbin, often off a user's PATH). */
const NGINX_CANDIDATES = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'];

/** Why nginx cannot run here (no binary found), or null when a binary is there. */
export function nginxMissing(): string | null {
  return nginxBinary() ? null : NO_NGINX;
}

const NO_NGINX = 'no nginx binary found (apt-get install nginx-light)';

function nginxBinary(): string | null {
  for (const path of NGINX_CANDIDATES) if (existsSync(path)) return path;
  for (const dir of (Deno.env.get('PATH') ?? '').split(':')) {
    if (dir && existsSync(`${dir}/nginx`)) return `${dir}/nginx`;
  }
  return null;
}

/** A free port on 127.0.0.1 (nginx cannot report a port 0 bind). */
function freePort(): number {
  for (let i = 0; i < 200; i++) {
    const port = 20000 + Math.floor(Math.random() * 40000);
    if (portIsFree(port)) return port;
  }
  throw new Error('no free port found for nginx');
}

/**
 * The configuration: one worker, keep-alive to the upstream, the token injected; a request
 * asking for an upgrade is passed on with `Upgrade` and `Connection: upgrade`, any other with an
 * empty `Connection` (keep-alive to the upstream). Connections: enough for the relay's 1100 idle
 * sockets, two each.
 */
export function nginxConfig(prefix: string, port: number, upstream: URL, token: string): string {
  return `daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile 20000;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  map $http_upgrade $connection_upgrade { default upgrade; '' ''; }
  # nginx closes a client connection after 1000 requests by default; autocannon then pairs each
  # later answer with an earlier request's start time (its FIFO keeps the request the close cut
  # off), which inflated nginx's latencies 17-fold at c=1. Connections stay open for the run.
  keepalive_requests 10000000;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  upstream fixed { server ${upstream.host}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://fixed;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header Authorization "Bearer ${token}";
    }
  }
}
`;
}

async function waitForPort(port: number, child: Deno.ChildProcess): Promise<void> {
  let exited = false;
  child.status.then(() => exited = true);
  for (let i = 0; i < 100 && !exited; i++) {
    try {
      const conn = await Deno.connect({ hostname: '127.0.0.1', port });
      conn.close();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`nginx did not start listening on ${port}`);
}

/**
 * Starts nginx in front of `upstream`, or answers why it cannot ({skipped}: no binary found).
 * Throws when a binary is there but nginx does not start (its error log in the message): that
 * is a failure, never a skip.
 */
export async function startNginx(
  upstream: string,
  token: string,
): Promise<NginxProcess | { skipped: string }> {
  const binary = nginxBinary();
  if (!binary) return { skipped: NO_NGINX };
  const prefix = await Deno.makeTempDir({ prefix: 'svc-gateway-nginx-' });
  const port = freePort();
  const conf = `${prefix}/nginx.conf`;
  await Deno.writeTextFile(conf, nginxConfig(prefix, port, new URL(upstream), token));
  const child = new Deno.Command(binary, {
    args: ['-p', prefix, '-c', conf, '-e', `${prefix}/error.log`],
    stdin: 'null',
    stdout: 'null',
    stderr: 'piped',
  }).spawn();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const collected: string[] = [];
  (async () => {
    while (true) {
      const { done, value } = await stderr.read();
      if (done) break;
      collected.push(value);
    }
  })();
  const stop = async () => {
    try {
      child.kill('SIGTERM');
    } catch { /* gone */ }
    await child.status;
    await Deno.remove(prefix, { recursive: true }).catch(() => {});
  };
  try {
    await waitForPort(port, child);
  } catch (error) {
    const log = await Deno.readTextFile(`${prefix}/error.log`).catch(() => '');
    await stop();
    throw new Error(
      `nginx failed to start: ${(error as Error).message} ${collected.join('')}${log}`,
    );
  }
  return { pid: child.pid, url: `http://127.0.0.1:${port}`, stop };
}
