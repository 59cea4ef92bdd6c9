/**
 * Test peers that run beside a host process: a forward HTTP proxy.
 */
import { createServer, request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { Buffer } from 'node:buffer';

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
  const tunnels = new Set<Duplex>();
  server.on('connect', (req, client: Duplex, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    tunnels.add(client);
    client.once('close', () => tunnels.delete(client));
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
        for (const tunnel of tunnels) tunnel.destroy();
        server.close(() => resolve());
      }),
  };
}
