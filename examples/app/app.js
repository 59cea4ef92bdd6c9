// The example app: plain HTML plus the client library. It signs in with a session token,
// queries through the gateway, subscribes over its socket, and shows refusals as sentences.
// Bundled with graphql-ws by esbuild (see examples/README.md); served by the Node host.
import { createSvcClient, createSvcSocket, errorMessageFor, socketError } from 'svc-gateway/client';

const BOT = 'query Bot($botID: BotID!) { bot(id: $botID) { id title } }';
const BOOKINGS = 'subscription Bookings($botID: BotID!) { bookingAdded(botID: $botID) { id } }';
const OTHER_BOT = 'b0000000000000000000ffff';

/** What the user reads for each code (or error class); anything else gets the fallback. */
const MESSAGES = {
  AuthSessionRequired: 'Please sign in again.',
  AuthTenantForbidden: 'Your account has no bot yet.',
  BotNotAllowed: 'That bot belongs to another workspace.',
  TenantBusy: 'Too many requests: wait a few seconds.',
  SvcNetworkError: 'The gateway cannot be reached.',
};
const FALLBACK = 'Something went wrong.';

const $ = (id) => document.getElementById(id);
let token = '';

const client = createSvcClient({
  getAccessToken: () => token,
  onSessionError: (error) => {
    $('session').textContent = `session lapsed (${error.reason})`;
  },
});
const socket = createSvcSocket({
  getAccessToken: () => token,
  onReconnect: () => void runQuery(),
});

function showRefusal(error) {
  $('refusal').textContent = errorMessageFor(error, MESSAGES, FALLBACK);
  $('refusal').dataset.code = error.code ?? error.name;
}

async function runQuery(botID = $('bot').value) {
  try {
    const data = await client.request(BOT, { botID }, { idempotent: true });
    $('result').textContent = JSON.stringify(data);
  } catch (error) {
    showRefusal(error);
  }
}

$('sign-in').addEventListener('submit', (event) => {
  event.preventDefault();
  token = $('token').value.trim();
  $('session').textContent = token ? 'signed in' : 'no session (gate off)';
});
$('query').addEventListener('click', () => void runQuery());
$('refused').addEventListener('click', () => void runQuery(OTHER_BOT));
$('subscribe').addEventListener('click', () => {
  socket.subscribe({ query: BOOKINGS, variables: { botID: $('bot').value } }, {
    next: (event) => {
      const item = document.createElement('li');
      item.textContent = JSON.stringify(event.data);
      $('events').append(item);
    },
    error: (error) => showRefusal(socketError(error)),
    complete: () => {
      $('events').dataset.complete = 'true';
    },
  });
});
$('session').dataset.ready = 'true';
