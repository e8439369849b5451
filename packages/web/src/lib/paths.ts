import type { TAuthSession } from './auth-store';

/** Route paths (inside the router basename /react). */
export const paths = {
  home: '/',
  login: '/login',
  /** Admin login-as: the new tab the Users page hands a one-time ticket to. */
  loginAs: '/login-as',
  register: '/register',
  forgotPassword: '/forgotpassword',
  resetPassword: '/reset-password',
  emailVerification: '/email-verification',
  signOut: '/signout',
  docs: '/docs',
  /** The agent API reference (docs/agent-api.md), public like /docs. */
  agentApi: '/docs/agent-api',
  avatars: '/avatars',
  addAvatar: '/addavatar',
  knowledgeBase: '/knowledgeBase',
  functions: '/functions',
  encryptionKeys: '/encryptionKeys',
  account: '/account',
  /** The account's API keys for servers (ADR 094), reached from the Account page. */
  apiKeys: '/apiKeys',
  /** The account's conversations (ADR 092); `/conversations/:id` is one transcript. */
  conversations: '/conversations',
  /** The account's figures (ADR 099): linked from Conversations (the top bar holds eight entries). */
  analytics: '/analytics',
  /** The account's webhooks (ADR 093): linked from Conversations (the top bar holds eight entries). */
  webhooks: '/webhooks',
  /** An avatar's redaction and retention (ADR 097): linked from Conversations, `?avatarId=`. */
  privacy: '/privacy',
  onlineUsers: '/onlineusers',
  myOnlineUsers: '/myonlineusers',
  vpsStatus: '/vpsstatus',
  users: '/users',
  requests: '/requests',
  oauthConfigs: '/oauthconfigs',
  addOauthApp: '/addoauthapp',
  oauthHelp: '/oauthhelp',
  functionsReview: '/functionsreview',
  chatWidget: '/chatWidget',
} as const;

/** Where `/` leads: administrators to Online Users, everybody else to the Avatar Creator. */
export function homePathFor(session: TAuthSession | null): string {
  if (!session) return paths.login;
  return session.userType === 'ADMIN' ? paths.onlineUsers : paths.avatars;
}

/** The location a signed-out visitor asked for, remembered in the router state on the way to /login. */
export interface RememberedLocation {
  pathname: string;
  search?: string;
  hash?: string;
}

export interface LoginLocationState {
  from?: RememberedLocation;
}

/** The remembered location as a path, or null when there is none worth returning to. */
export function rememberedPath(state: unknown): string | null {
  if (typeof state !== 'object' || state === null) return null;
  const from = (state as LoginLocationState).from;
  if (!from || typeof from.pathname !== 'string' || !from.pathname.startsWith('/')) return null;
  if (from.pathname === paths.home || from.pathname === paths.login || from.pathname === paths.signOut) return null;
  return `${from.pathname}${from.search ?? ''}${from.hash ?? ''}`;
}
