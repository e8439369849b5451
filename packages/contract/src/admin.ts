/**
 * What the admin console's pages and their calls say (spec section 2's Online Users and VPS Status,
 * and the Users and Requests pages): one list for the presence, workers, users and account features.
 */
export const AdminMessages = {
  onlineUsersLoadFailed: 'Failed to fetch online users',
  onlineUsersHint: 'Check your connection and press refresh. If the problem persists, look at the server log.',
  vpsLoadFailed: 'Failed to fetch VPS list',
  vpsDeleteServerError: 'Server Error occured while Delete',
  vpsInvalid: 'Invalid VPS',
  vpsAlreadyDisconnected: 'VPS was already discinnected',
  sessionNotFound: 'This session is no longer online.',
  cannotDisableSelf: 'You cannot disable your own account.',
  lastActiveAdmin: 'This is the last active administrator account: enable or create another administrator first.',
  requestAlreadyDecided: 'This request has already been decided.',
  usersLoadFailed: 'Failed to fetch users',
  requestsLoadFailed: 'Failed to fetch plan requests',
} as const;
