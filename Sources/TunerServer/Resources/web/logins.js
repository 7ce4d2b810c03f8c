// The Outputs page for the owner: the links (tables.js) and the Xtream logins. A new login gets a
// password made here (crypto.getRandomValues, 20 letters and digits: nothing a stream path would
// escape), sent once and shown once beside the server address; the table shows each login's
// profiles, limit, stream profile, expiry and state, who is watching with it now (the `streams`
// live events), and buttons to change, disable or enable, and remove it.
import './tables.js';
import { el, say } from './app.js';
import { command, getJSON } from './command.js';
import { paths } from './api-paths.js';
import { subscribe, onResync } from './events.js';

const table = document.querySelector('#login-list tbody');
const status = document.getElementById('logins-status');
const form = document.getElementById('login-form');
const made = document.getElementById('login-made');
let users = [];
let streams = [];
let editing = null; // the username the form changes, or null when it adds

/** 20 of 57 letters and digits (no 0, O, 1, l, I) from the browser's random source: about 116 bits. */
function newPassword() {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const bytes = new Uint8Array(40);
  crypto.getRandomValues(bytes);
  let password = '';
  for (const byte of bytes) {
    // Rejection sampling keeps every character equally likely.
    if (byte < 256 - (256 % alphabet.length)) password += alphabet[byte % alphabet.length];
    if (password.length === 20) break;
  }
  return password.length === 20 ? password : newPassword();
}

function expiryText(seconds) {
  return seconds ? new Date(seconds * 1000).toISOString().slice(0, 10) : 'never';
}

function state(user) {
  if (user.disabled) return 'disabled';
  if (user.expiresAt && user.expiresAt * 1000 <= Date.now()) return 'expired';
  return 'active';
}

function watching(username) {
  const channels = [];
  for (const stream of streams) {
    for (const viewer of stream.viewers || []) if (viewer.user === username) channels.push(stream.channelName);
  }
  return channels.length ? `${channels.length}: ${channels.join(', ')}` : '–';
}

function draw() {
  table.replaceChildren(...users.map((user) => el('tr', { 'data-user': user.username },
    el('td', { text: user.username }),
    el('td', { text: user.profiles.join(', ') }),
    el('td', { text: String(user.maxConnections) }),
    el('td', { text: user.streamProfile }),
    el('td', { text: expiryText(user.expiresAt) }),
    el('td', { class: 'login-state', text: state(user) }),
    el('td', { class: 'login-watching', text: watching(user.username) }),
    el('td', {},
      el('button', { type: 'button', 'data-action': 'edit', 'aria-label': `Change ${user.username}`, text: 'Change' }),
      ' ',
      el('button', {
        type: 'button', 'data-action': user.disabled ? 'enable' : 'disable',
        'aria-label': `${user.disabled ? 'Enable' : 'Disable'} ${user.username}`, text: user.disabled ? 'Enable' : 'Disable',
      }),
      ' ',
      el('button', { type: 'button', 'data-action': 'remove', 'aria-label': `Remove ${user.username}`, text: 'Remove' })))));
  if (!users.length) say(status, 'No logins yet: add one below.');
}

async function load() {
  try {
    users = (await getJSON(paths.users)).users;
    streams = (await getJSON(paths.streams)).streams;
    draw();
  } catch (error) {
    say(status, error.message, true);
  }
}

function settingsFromForm() {
  const profiles = [...form.querySelectorAll('input[name=profiles]:checked')].map((box) => box.value);
  const expiry = document.getElementById('login-expiry').value;
  return {
    profiles,
    maxConnections: Number(document.getElementById('login-limit').value),
    streamProfile: document.getElementById('login-stream-profile').value,
    // The end of the chosen day, UTC; 0 clears an expiry.
    expiresAt: expiry ? Math.floor(Date.parse(`${expiry}T23:59:59Z`) / 1000) : 0,
  };
}

function showMade(user, password) {
  document.getElementById('login-made-server').value = user.serverURL;
  document.getElementById('login-made-name').value = user.username;
  document.getElementById('login-made-password').value = password;
  made.hidden = false;
  made.scrollIntoView({ block: 'nearest' });
}

function resetForm() {
  editing = null;
  form.reset();
  document.getElementById('login-name').disabled = false;
  document.getElementById('login-form-heading').textContent = 'Add a login';
  document.getElementById('login-submit').textContent = 'Add the login';
  document.getElementById('login-cancel').hidden = true;
  document.getElementById('login-new-password-label').hidden = true;
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const settings = settingsFromForm();
  if (!settings.profiles.length) {
    say(status, 'Choose at least one profile.', true);
    return;
  }
  const submit = document.getElementById('login-submit');
  made.hidden = true;
  try {
    if (editing) {
      const password = document.getElementById('login-new-password').checked ? newPassword() : undefined;
      const user = await command('PATCH', paths.changeUser(editing), { ...settings, password }, { control: submit });
      say(status, `${user.username} changed.`);
      if (password) showMade(user, password);
    } else {
      const username = document.getElementById('login-name').value.trim();
      const password = newPassword();
      const body = { ...settings, username, password };
      if (!body.expiresAt) delete body.expiresAt;
      const user = await command('POST', paths.addUser, body, { control: submit });
      say(status, `${user.username} added.`);
      showMade(user, password);
    }
    resetForm();
    await load();
  } catch (error) {
    say(status, error.message, true);
  }
});

document.getElementById('login-cancel').addEventListener('click', () => {
  resetForm();
  say(status, '');
});

table.addEventListener('click', async (event) => {
  const button = event.target.closest('button[data-action]');
  if (!button) return;
  const username = button.closest('tr').dataset.user;
  const user = users.find((entry) => entry.username === username);
  if (!user) return;
  const action = button.dataset.action;
  if (action === 'edit') {
    editing = username;
    made.hidden = true;
    document.getElementById('login-name').value = username;
    document.getElementById('login-name').disabled = true;
    for (const box of form.querySelectorAll('input[name=profiles]')) box.checked = user.profiles.includes(box.value);
    document.getElementById('login-limit').value = user.maxConnections;
    document.getElementById('login-stream-profile').value = user.streamProfile;
    document.getElementById('login-expiry').value = user.expiresAt ? expiryText(user.expiresAt) : '';
    document.getElementById('login-new-password').checked = false;
    document.getElementById('login-new-password-label').hidden = false;
    document.getElementById('login-form-heading').textContent = `Change ${username}`;
    document.getElementById('login-submit').textContent = 'Save';
    document.getElementById('login-cancel').hidden = false;
    document.getElementById('login-limit').focus();
    return;
  }
  try {
    if (action === 'remove') {
      await command('DELETE', paths.removeUser(username), undefined, { control: button });
      say(status, `${username} removed.`);
    } else {
      const disabled = action === 'disable';
      await command('PATCH', paths.changeUser(username), { disabled }, { control: button });
      say(status, `${username} ${disabled ? 'disabled: it sees its account and nothing else' : 'enabled'}.`);
    }
    await load();
  } catch (error) {
    say(status, error.message, true);
  }
});

subscribe('streams', (event) => {
  streams = event.data || [];
  draw();
});
onResync(load);
load();
