import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { Alert, Box } from '@mui/material';
import { LiveMessages } from '@persona/contract';
import '../../../live-client/avatar-page.css';
import { mountAvatarApp } from '../../../live-client/avatar-app';
import { avatarIdFromPath, parseAvatarPageOptions } from '../../../live-client/params';
import { getAvatarToken } from '../api/get-avatar-token';

/**
 * /chatWidget/{avatarId}: the chat-only widget of an avatar (navbar and footer hidden), on the
 * same session machinery as the avatar page, for the signed-in owner.
 */
export function ChatWidgetRoute() {
  const location = useLocation();
  const avatarId = avatarIdFromPath(location.pathname.replace(/\/+$/, ''));
  const container = useRef<HTMLDivElement>(null);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    const node = container.current;
    if (!node || avatarId === null) return;
    let app: ReturnType<typeof mountAvatarApp> | undefined;
    let isCancelled = false;
    void (async () => {
      const options = parseAvatarPageOptions(location.search);
      if (!options.token) {
        try {
          const token = await getAvatarToken(avatarId);
          if (token) options.token = token;
        } catch {
          if (!isCancelled) setFailure(LiveMessages['avatar-not-found']);
          return;
        }
      }
      if (!isCancelled) app = mountAvatarApp(node, { avatarId, options, textOnly: true });
    })();
    return () => {
      isCancelled = true;
      app?.destroy();
    };
  }, [avatarId, location.search]);

  if (avatarId === null || failure) {
    return (
      <Box sx={{ p: 2 }}>
        <Alert severity="error">{failure ?? LiveMessages['avatar-not-found']}</Alert>
      </Box>
    );
  }
  // The frame's height inline: the sheet's `.ps-root { height: 100% }` (the avatar page's root in a
  // sized body) would otherwise win over a styled class, and the column would end at its last message.
  return <div ref={container} className="ps-root" style={{ height: '100dvh' }} />;
}
