import type { TInfoPanelItem } from '@persona/contract';

export type OAuthHelpKey = 'page' | 'appName' | 'partner' | 'clientId' | 'clientSecret' | 'oauthURL' | 'tokenIssueURL' | 'callbackURL';

/** What the info panel (and the help page) says about each field of an OAuth config. */
export const oauthHelp: Record<OAuthHelpKey, TInfoPanelItem> = {
  page: {
    title: 'OAuth configs',
    description:
      'An OAuth config connects the portal to an identity service, so an avatar can ask its visitors to sign in (with their Google account, for example) before they talk to it. Turn it on for an avatar in the Avatar Creator with the OAuth setting and this config.',
    possibleValues: [
      { name: 'OAuth Info', type: 'step', description: 'A name and the identity service.' },
      { name: 'OAuth Details', type: 'step', description: 'The client id and secret the service gave you, and its two endpoints.' },
    ],
    usefulness: 'Signed-in visitors are known visitors: the avatar can greet them, and only people with an account at your identity service can use it.',
  },
  appName: {
    title: 'Name',
    description: 'Your name for this config, shown in the list and when you choose the config of an avatar.',
    possibleValues: [{ name: 'Text', type: 'string', description: 'Required; at most 100 characters.' }],
    usefulness: 'With several configs (staff and customers, test and live) a clear name avoids linking the wrong one.',
  },
  partner: {
    title: 'OAuth Identity Service',
    description: 'The service your visitors sign in with.',
    possibleValues: [
      { name: 'Google', type: 'partner', description: 'Google accounts (Gmail, Google Workspace). The two endpoints are filled in for you.' },
      { name: 'SmartPension', type: 'partner', description: 'SmartPension member accounts; use the endpoints SmartPension gives you.' },
    ],
    usefulness: 'It decides which accounts can sign in and which endpoints the portal talks to.',
  },
  clientId: {
    title: 'Client Id',
    description: 'The public identifier of the OAuth client you registered with the identity service. For Google: Google Cloud console › APIs & Services › Credentials › OAuth 2.0 Client IDs (it ends in .apps.googleusercontent.com).',
    possibleValues: [{ name: 'Text', type: 'string', description: 'Required. Shown cut at 30 characters in the list.' }],
    usefulness: 'The identity service uses it to know which application asks visitors to sign in, and shows its name on the consent screen.',
  },
  clientSecret: {
    title: 'Client Secret',
    description: 'The secret of that OAuth client, shown by the identity service when you create the client. The portal stores it encrypted and never shows it again in full.',
    possibleValues: [
      { name: 'Text', type: 'secret', description: 'Required when creating.' },
      { name: 'Empty', type: 'on edit', description: 'Keeps the stored secret.' },
    ],
    usefulness: 'The portal proves it is your application with it when it exchanges a visitor’s sign-in code for tokens. Keep it out of web pages and e-mails.',
  },
  oauthURL: {
    title: 'OAuth URL',
    description: 'The authorization endpoint: where visitors are sent to sign in and consent. Google: https://accounts.google.com/o/oauth2/v2/auth',
    possibleValues: [{ name: 'URL', type: 'http(s)', description: 'Required; a full URL.' }],
    usefulness: 'A wrong URL sends visitors to an error page instead of the sign-in screen.',
  },
  tokenIssueURL: {
    title: 'Token Issue URL',
    description: 'The token endpoint: the portal’s server exchanges the sign-in code there for the visitor’s tokens. Google: https://oauth2.googleapis.com/token',
    possibleValues: [{ name: 'URL', type: 'http(s)', description: 'Required; a full URL on the public internet.' }],
    usefulness: 'Without a working token endpoint a visitor can sign in at the service but never gets back into the avatar.',
  },
  callbackURL: {
    title: 'Callback URL',
    description: 'Where the identity service sends visitors back after they signed in (the redirect URI). The portal sets it: …/api/oauth/callback/{config id}.',
    possibleValues: [{ name: 'URL', type: 'read-only', description: 'Copy it into the identity service’s list of allowed redirect URIs.' }],
    usefulness: 'Identity services only send visitors back to redirect URIs registered in advance; a missing one makes the service refuse the sign-in (redirect_uri_mismatch).',
  },
};
