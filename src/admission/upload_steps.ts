/**
 * The two checks only an upload has: SPEC "Route table" (the upload rows).
 * The rest of an upload's admission reuses the GraphQL chain's rows (gate,
 * token, tenant, bot fence): see UPLOAD_STEPS in steps.ts.
 */
import { refusal } from '../http/error_codes.ts';
import { botIdValues, UPLOAD_PATHS } from './upload_paths.ts';
import type { Step } from './chain.ts';
import type { GraphqlState as S } from './graphql_state.ts';

/** The upload's path relative to the api prefix, e.g. /filestorage/upload/bot. */
function uploadPath(s: S): string {
  const path = new URL(s.request!.url).pathname;
  return path.slice(s.core.config.apiPath.length);
}

/** useraccount with the gate on: 403 AccountOperationBlocked. */
export const accountUpload: Step<S> = {
  step: 13,
  check: 'useraccount upload with the gate on is an account-level operation',
  run(s) {
    if (UPLOAD_PATHS[uploadPath(s)]?.scope !== 'account' || s.core.config.auth.state !== 'on') {
      return null;
    }
    return refusal('AccountOperationBlocked', 'Account uploads are not available here');
  },
};

/**
 * Bot-scoped uploads name exactly one botID (any spelling, `isBotIdName`): none or two 400
 * InvalidRequest; the one joins the named bots (the bot fence checks it).
 */
export const uploadBot: Step<S> = {
  step: 17,
  check: 'a bot-scoped upload names exactly one botID',
  run(s) {
    if (UPLOAD_PATHS[uploadPath(s)]?.scope !== 'bot') return null;
    const bots = botIdValues(new URL(s.request!.url).searchParams);
    if (bots.length !== 1) {
      return refusal('InvalidRequest', 'An upload names exactly one botID query parameter');
    }
    s.bots.add(bots[0]);
    return null;
  },
};
