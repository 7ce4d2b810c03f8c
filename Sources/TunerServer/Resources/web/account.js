// The Settings page: what every page has, and signing out (the session ends on the server and
// its cookie is cleared).
import './app.js';
import { command } from './command.js';
import { paths } from './api-paths.js';

document.querySelector('[data-sign-out]')?.addEventListener('click', async (event) => {
  const button = event.currentTarget;
  await command('DELETE', paths.signOut, undefined, { control: button }).catch(() => {});
  location.assign('/login');
});
