// The Settings page: what every page has, signing out (the session ends on the server and its
// cookie is cleared), and for the owner the API keys and the backups.
import { bytes, copyButtons, el, say } from './app.js';
import { command, getJSON } from './command.js';
import { paths } from './api-paths.js';

document.querySelector('[data-sign-out]')?.addEventListener('click', async (event) => {
  const button = event.currentTarget;
  await command('DELETE', paths.signOut, undefined, { control: button }).catch(() => {});
  location.assign('/login');
});

// Backups (admin only: the panel is there only for them): write one now, then list the folder.
const backupButton = document.getElementById('backup-now');
const backupStatus = document.getElementById('backup-status');
backupButton?.addEventListener('click', async () => {
  say(backupStatus, 'Writing a backup…');
  try {
    // A large state takes a while: the command waits longer than usual before resending.
    const made = await command('POST', paths.addBackup, undefined, { control: backupButton, timeout: 300000 });
    say(backupStatus, `Backup written: ${made.name}`);
    await showBackups();
  } catch (error) {
    say(backupStatus, error.message, true);
  }
});

async function showBackups() {
  const list = await getJSON(paths.backups);
  const body = document.querySelector('#backup-list tbody');
  body.replaceChildren(...list.backups.map((backup) => el('tr', {},
    el('td', { text: backup.name }),
    el('td', { text: bytes(backup.size) }),
    el('td', {}, el('time', { text: new Date(backup.createdAt).toISOString().replace('.000Z', 'Z') })))));
}

// API keys (admin only, like the panel): make one (its secret shown once), revoke one.
const keyForm = document.getElementById('key-form');
const keysStatus = document.getElementById('keys-status');
const keySecret = document.getElementById('key-secret');
copyButtons(keySecret ?? document.createElement('div'));
keyForm?.addEventListener('submit', async (event) => {
  event.preventDefault();
  const name = document.getElementById('key-name').value.trim();
  const scope = document.getElementById('key-scope').value;
  try {
    const made = await command('POST', paths.addKey, { name, scope }, { control: keyForm.querySelector('button') });
    document.getElementById('key-secret-value').value = made.secret;
    keySecret.hidden = false;
    say(keysStatus, `Key ${made.key.name} (${made.key.scope}) made: copy its secret now, it is not shown again.`);
    keyForm.reset();
    await showKeys();
  } catch (error) {
    say(keysStatus, error.message, true);
  }
});
document.getElementById('key-list')?.addEventListener('click', async (event) => {
  const button = event.target.closest('button.revoke-key');
  if (!button) return;
  const row = button.closest('tr');
  try {
    await command('DELETE', paths.removeKey(row.dataset.keyId), undefined, { control: button });
    say(keysStatus, `Key ${row.cells[0].textContent} revoked: what signed in with it is signed out.`);
    await showKeys();
  } catch (error) {
    say(keysStatus, error.message, true);
  }
});

async function showKeys() {
  const list = await getJSON(paths.keys);
  const iso = (text) => (text ? new Date(text).toISOString().replace('.000Z', 'Z') : 'never');
  document.querySelector('#key-list tbody').replaceChildren(...list.keys.map((key) => el('tr', { 'data-key-id': key.id },
    el('td', { text: key.name }),
    el('td', { text: key.scope }),
    el('td', {}, el('code', { text: key.hint })),
    el('td', {}, el('time', { text: iso(key.createdAt) })),
    el('td', { text: iso(key.lastUsedAt) }),
    el('td', {}, el('button', { type: 'button', class: 'revoke-key', 'aria-label': `Revoke ${key.name}`, text: 'Revoke' })))));
}
