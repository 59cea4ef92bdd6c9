/**
 * svc_recovery_authorize's rank rule over the PostgREST-compatible endpoint, every caller/target
 * pair of owner, admin and member: refused (PT403 'rank') only when the target outranks the
 * caller, or when the caller is a plain member (SPEC "Database hint mapping": "rank |
 * NotEnoughPermissions (target outranks caller)"; "Authentication" 6). An equal rank is allowed.
 */
import assert from 'node:assert/strict';
import { startBackend } from '../fixtures/db/backend.ts';
import type { MemberRole } from '../fixtures/db/seed.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';

const ROLES: MemberRole[] = ['owner', 'admin', 'member'];
const RANK: Record<MemberRole, number> = { owner: 3, admin: 2, member: 1 };

/** What the rule answers for caller `from` asking about target `to`. */
function expected(from: MemberRole, to: MemberRole): 'ok' | 'rank' {
  if (from === 'member') return 'rank';
  return RANK[to] > RANK[from] ? 'rank' : 'ok';
}

Deno.test('svc_recovery_authorize: refused only when the target outranks the caller', async () => {
  const cluster = await startPostgres();
  try {
    const b = await startBackend(cluster);
    try {
      // two accounts of each role in one workspace, so every pair has a distinct target
      const first = await b.seed.createUser('owner-1@example.test');
      const ws = await b.seed.createWorkspace('Acme', first);
      const people: Record<MemberRole, { id: string; email: string }[]> = {
        owner: [{ id: first, email: 'owner-1@example.test' }],
        admin: [],
        member: [],
      };
      for (const role of ROLES) {
        while (people[role].length < 2) {
          const email = `${role}-${people[role].length + 1}@example.test`;
          const id = await b.seed.createUser(email);
          await b.seed.addMember(ws, id, role);
          people[role].push({ id, email });
        }
      }
      const seen: string[] = [];
      for (const from of ROLES) {
        const caller = people[from][0];
        const jwt = await b.rest.mintUserToken(caller.id);
        for (const to of ROLES) {
          const target = people[to][1];
          const reply = await b.rpc('svc_recovery_authorize', { p_email: target.email }, jwt);
          const outcome = reply.status === 200 ? 'ok' : (reply.body as { hint?: string }).hint;
          seen.push(`${from}->${to}: ${outcome}`);
          if (outcome === 'ok') {
            assert.deepEqual(reply.body, { userId: target.id, email: target.email });
          } else {
            assert.equal(reply.status, 403, JSON.stringify(reply.body));
          }
        }
      }
      assert.deepEqual(
        seen,
        ROLES.flatMap((from) => ROLES.map((to) => `${from}->${to}: ${expected(from, to)}`)),
      );
      // only the authorised requests were recorded: owner x3, admin x2
      const rows = await b.seed.query(
        'select count(*)::int as n from public.svc_recovery_requests',
      );
      assert.equal(rows.rows[0].n, 5);
    } finally {
      await b.stop();
    }
  } finally {
    await cluster.stop();
  }
});
