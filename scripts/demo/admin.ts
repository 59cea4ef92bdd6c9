/**
 * The demo's operator: unlocks the admin panel (POST /svc/admin/session with the password) and
 * reads the overview with the svc_admin cookie and the x-svc-admin header (SPEC "Admin panel:
 * /svc/admin"). Prints what it saw; never the password or the cookie value.
 */

/** The panel password of a demo run: ADMIN_PASSWORD when it has 16+ characters, else random. */
export function demoAdminPassword(env: Record<string, string | undefined>): {
  password: string;
  origin: string;
} {
  const given = env.ADMIN_PASSWORD;
  if (given && given.length >= 16) return { password: given, origin: 'from ADMIN_PASSWORD' };
  return {
    password: `demo-${crypto.randomUUID()}`,
    origin: 'random for this run (set ADMIN_PASSWORD to choose it)',
  };
}

/** The operator's lines for one host, and what went wrong ('' when everything did as expected). */
export async function adminDemo(
  url: string,
  password: string,
): Promise<{ lines: string[]; problem: string }> {
  const base = `${url}/svc/admin`;
  const locked = await fetch(`${base}/overview`, { headers: { 'x-svc-admin': '1' } });
  await locked.body?.cancel();
  const unlock = await fetch(`${base}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password }),
  });
  const session = await unlock.json().catch(() => null);
  const setCookie = unlock.headers.get('set-cookie') ?? '';
  const cookie = /^(svc_admin=[^;]+)/.exec(setCookie)?.[1];
  const attributes = setCookie.split(';').slice(1).map((a) => a.trim()).join('; ');
  const lines = [
    `admin: GET /overview without a session   ${locked.status}`,
    `admin: POST /session with the password    ${unlock.status} unlocked until ${
      session?.expiresAt ?? '?'
    }; cookie svc_admin=… (${attributes})`,
  ];
  if (locked.status !== 401) return { lines, problem: 'the locked panel answered' };
  if (!cookie) return { lines, problem: 'no svc_admin cookie' };
  const res = await fetch(`${base}/overview`, { headers: { cookie, 'x-svc-admin': '1' } });
  const overview = await res.json().catch(() => null);
  const workspaces: { title: string; bots: unknown[] }[] = overview?.workspaces ?? [];
  lines.push(
    `admin: GET /overview with cookie + header ${res.status} account ${
      overview?.account?.name ?? '?'
    }: ${workspaces.map((w) => `${w.title} (${w.bots.length} bots)`).join(', ')}`,
  );
  return { lines, problem: res.status === 200 && workspaces.length > 0 ? '' : 'no overview' };
}
