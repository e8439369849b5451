import type { TPublicConfig } from '@persona/contract';
import type { TAuthSession } from '../../lib/auth-store';
import { paths } from '../../lib/paths';

export type MenuEntry =
  | { kind: 'route'; label: string; to: string }
  | { kind: 'external'; label: string; href: (config: TPublicConfig) => string };

/** The ordinary user's menu as the spec lists it, with Conversations (issue 30, ADR 092) after the Avatar Creator. */
export const userMenu: readonly MenuEntry[] = [
  { kind: 'route', label: 'Avatar Creator', to: paths.avatars },
  { kind: 'route', label: 'Conversations', to: paths.conversations },
  { kind: 'route', label: 'Knowledge Base', to: paths.knowledgeBase },
  { kind: 'route', label: 'Functions', to: paths.functions },
  { kind: 'route', label: 'Encryption Keys', to: paths.encryptionKeys },
  { kind: 'route', label: 'Account', to: paths.account },
  { kind: 'external', label: 'Docs', href: (config) => config.docsUrl },
  { kind: 'route', label: 'Sign Out', to: paths.signOut },
];

/** The administrator's menu. Later features insert their entries before Sign Out. */
export const adminMenu: readonly MenuEntry[] = [
  { kind: 'route', label: 'Online Users', to: paths.onlineUsers },
  { kind: 'route', label: 'VPS Status', to: paths.vpsStatus },
  { kind: 'route', label: 'Users', to: paths.users },
  { kind: 'route', label: 'Conversations', to: paths.conversations },
  { kind: 'route', label: 'Requests', to: paths.requests },
  { kind: 'route', label: 'Account', to: paths.account },
  { kind: 'route', label: 'Functions review', to: paths.functionsReview },
  { kind: 'route', label: 'Sign Out', to: paths.signOut },
];

/** Signed-out visitors: the public docs and the way in. */
export const guestMenu: readonly MenuEntry[] = [
  { kind: 'route', label: 'Docs', to: paths.docs },
  { kind: 'route', label: 'Sign In', to: paths.login },
];

export function menuFor(session: TAuthSession | null): readonly MenuEntry[] {
  if (!session) return guestMenu;
  return session.userType === 'ADMIN' ? adminMenu : userMenu;
}
