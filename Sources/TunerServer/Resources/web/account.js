// The Settings page: what every page has, signing out (the session ends on the server and its
// cookie is cleared), and for the owner the backups.
import { bytes, el, say } from './app.js';
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
