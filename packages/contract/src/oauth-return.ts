/**
 * The query parameters a sign-in returns with (see ZOAuthGrantRequest in oauth.ts). In a module
 * of their own, without zod, so the avatar page can use them without loading the OAuth schemas.
 */
export const OAuthReturnParams = { code: 'oauthCode', error: 'oauthError' } as const;
