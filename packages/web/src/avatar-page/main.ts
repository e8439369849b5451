import '../live-client/avatar-page.css';
import { handOverOAuthGrant, mountAvatarApp } from '../live-client/avatar-app';
import { avatarIdFromPath, parseAvatarPageOptions } from '../live-client/params';

// The avatar page (/avatar/{id}): its own small entry, embeddable in an iframe on any site.
const root = document.getElementById('avatar-root');
if (!root) throw new Error('#avatar-root is missing from avatar.html');

void handOverOAuthGrant().then((isLanding) => {
  if (isLanding) return;
  const avatarId = avatarIdFromPath(window.location.pathname);
  if (avatarId === null) root.textContent = 'This avatar does not exist or has been deleted.';
  else mountAvatarApp(root, { avatarId, options: parseAvatarPageOptions(window.location.search) });
});
