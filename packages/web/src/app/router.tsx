import { useRoutes, type RouteObject } from 'react-router';
import { paths } from '../lib/paths';
import { HomeRedirect, RequireAuth } from './guards';
import { lazyPage } from './lazy-page';
import { AppShell, BareShell } from './layout/app-shell';
import { RouteErrorBoundary } from './routes/route-error';

// Every page is loaded on demand: the sign-in page downloads none of the others.
const LoginRoute = lazyPage(() => import('../features/auth/routes/login'), 'LoginRoute', { usesQueries: false });
const LoginAsRoute = lazyPage(() => import('../features/auth/routes/login-as'), 'LoginAsRoute', { usesQueries: false });
const RegisterRoute = lazyPage(() => import('../features/auth/routes/register'), 'RegisterRoute');
const EmailVerificationRoute = lazyPage(
  () => import('../features/auth/routes/email-verification'),
  'EmailVerificationRoute',
);
const ForgotPasswordRoute = lazyPage(() => import('../features/auth/routes/forgot-password'), 'ForgotPasswordRoute');
const ResetPasswordRoute = lazyPage(() => import('../features/auth/routes/reset-password'), 'ResetPasswordRoute');
const SignOutRoute = lazyPage(() => import('../features/auth/routes/sign-out'), 'SignOutRoute', { usesQueries: false });
const DocsRoute = lazyPage(() => import('../features/docs/routes/docs'), 'DocsRoute', { usesQueries: false });
const AgentApiRoute = lazyPage(() => import('../features/docs/routes/agent-api'), 'AgentApiRoute', { usesQueries: false });
const AvatarsRoute = lazyPage(() => import('../features/avatars/routes/avatars'), 'AvatarsRoute');
const AddAvatarRoute = lazyPage(() => import('../features/avatars/routes/add-avatar'), 'AddAvatarRoute');
const KnowledgeBaseRoute = lazyPage(() => import('../features/knowledge/routes/knowledge-base'), 'KnowledgeBaseRoute');
const FunctionsRoute = lazyPage(() => import('../features/functions/routes/functions'), 'FunctionsRoute');
const EncryptionKeysRoute = lazyPage(
  () => import('../features/encryption-keys/routes/encryption-keys'),
  'EncryptionKeysRoute',
);
const AccountRoute = lazyPage(() => import('../features/account/routes/account'), 'AccountRoute');
const ApiKeysRoute = lazyPage(() => import('../features/api-keys/routes/api-keys'), 'ApiKeysRoute');
const ConversationsRoute = lazyPage(() => import('../features/conversations/routes/conversations'), 'ConversationsRoute');
const ConversationRoute = lazyPage(() => import('../features/conversations/routes/conversation'), 'ConversationRoute');
const AnalyticsRoute = lazyPage(() => import('../features/analytics/routes/analytics'), 'AnalyticsRoute');
const WebhooksRoute = lazyPage(() => import('../features/webhooks/routes/webhooks'), 'WebhooksRoute');
const PrivacyRoute = lazyPage(() => import('../features/privacy/routes/privacy'), 'PrivacyRoute');
const OnlineUsersRoute = lazyPage(() => import('../features/presence/routes/online-users'), 'OnlineUsersRoute');
const MyOnlineUsersRoute = lazyPage(() => import('../features/presence/routes/my-online-users'), 'MyOnlineUsersRoute');
const VpsStatusRoute = lazyPage(() => import('../features/workers/routes/vps-status'), 'VpsStatusRoute');
const UsersRoute = lazyPage(() => import('../features/users/routes/users'), 'UsersRoute');
const RequestsRoute = lazyPage(() => import('../features/requests/routes/requests'), 'RequestsRoute');
const OauthConfigsRoute = lazyPage(() => import('../features/oauth/routes/oauth-configs'), 'OauthConfigsRoute');
const AddOauthAppRoute = lazyPage(() => import('../features/oauth/routes/add-oauth-app'), 'AddOauthAppRoute');
const OauthHelpRoute = lazyPage(() => import('../features/oauth/routes/oauth-help'), 'OauthHelpRoute');
const FunctionsReviewRoute = lazyPage(() => import('../features/functions/routes/functions-review'), 'FunctionsReviewRoute');
const ChatWidgetRoute = lazyPage(() => import('../features/chat-widget/routes/chat-widget'), 'ChatWidgetRoute');
const NotFoundRoute = lazyPage(() => import('./routes/not-found'), 'NotFoundRoute', { usesQueries: false });

const strip = (path: string) => path.replace(/^\//, '');

/** The routes of spec section 2, relative to the basename /react. */
export const routes: RouteObject[] = [
  {
    path: '/',
    element: <RouteErrorBoundary />,
    children: [
      {
        path: `${strip(paths.chatWidget)}/*`,
        element: (
          <RequireAuth>
            <BareShell />
          </RequireAuth>
        ),
        children: [{ path: '*', element: <ChatWidgetRoute /> }],
      },
      {
        element: <AppShell />,
        children: [
          { index: true, element: <HomeRedirect /> },
          // Public pages.
          { path: strip(paths.login), element: <LoginRoute /> },
          { path: strip(paths.loginAs), element: <LoginAsRoute /> },
          { path: strip(paths.register), element: <RegisterRoute /> },
          { path: `${strip(paths.emailVerification)}/:code?`, element: <EmailVerificationRoute /> },
          { path: strip(paths.forgotPassword), element: <ForgotPasswordRoute /> },
          { path: `${strip(paths.resetPassword)}/:code?`, element: <ResetPasswordRoute /> },
          { path: strip(paths.signOut), element: <SignOutRoute /> },
          { path: strip(paths.docs), element: <DocsRoute /> },
          { path: strip(paths.agentApi), element: <AgentApiRoute /> },
          // Signed-in pages.
          {
            element: <RequireAuth />,
            children: [
              { path: strip(paths.avatars), element: <AvatarsRoute /> },
              { path: strip(paths.addAvatar), element: <AddAvatarRoute /> },
              { path: strip(paths.knowledgeBase), element: <KnowledgeBaseRoute /> },
              { path: strip(paths.functions), element: <FunctionsRoute /> },
              { path: strip(paths.encryptionKeys), element: <EncryptionKeysRoute /> },
              { path: strip(paths.account), element: <AccountRoute /> },
              { path: strip(paths.apiKeys), element: <ApiKeysRoute /> },
              { path: strip(paths.conversations), element: <ConversationsRoute /> },
              { path: `${strip(paths.conversations)}/:id`, element: <ConversationRoute /> },
              { path: strip(paths.analytics), element: <AnalyticsRoute /> },
              { path: strip(paths.webhooks), element: <WebhooksRoute /> },
              { path: strip(paths.privacy), element: <PrivacyRoute /> },
              { path: strip(paths.onlineUsers), element: <OnlineUsersRoute /> },
              { path: strip(paths.myOnlineUsers), element: <MyOnlineUsersRoute /> },
              { path: strip(paths.vpsStatus), element: <VpsStatusRoute /> },
              { path: strip(paths.users), element: <UsersRoute /> },
              { path: strip(paths.requests), element: <RequestsRoute /> },
              { path: strip(paths.oauthConfigs), element: <OauthConfigsRoute /> },
              { path: strip(paths.addOauthApp), element: <AddOauthAppRoute /> },
              { path: strip(paths.oauthHelp), element: <OauthHelpRoute /> },
              { path: strip(paths.functionsReview), element: <FunctionsReviewRoute /> },
            ],
          },
          { path: '*', element: <NotFoundRoute /> },
        ],
      },
    ],
  },
];

export function AppRoutes() {
  return useRoutes(routes);
}
