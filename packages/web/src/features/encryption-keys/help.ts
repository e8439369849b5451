import type { TInfoPanelItem } from '@persona/contract';

export type EncryptionKeyHelpKey = 'page' | 'name' | 'privateKey' | 'defaultKey' | 'publicKey';

/** What the info panel says about each field of the Encryption Keys page. */
export const encryptionKeyHelp: Record<EncryptionKeyHelpKey, TInfoPanelItem> = {
  page: {
    title: 'Encryption Keys',
    description:
      'An encryption key lets only visitors you let in talk to an avatar. Your own server signs a short-lived access token with the private key; the avatar accepts the token because the portal holds the matching public key. Choose the key of an avatar in the Avatar Creator (Advanced Settings › Encryption).',
    possibleValues: [
      { name: 'Create', type: 'action', description: 'Makes a new key pair. The private key is shown once.' },
      { name: 'View', type: 'action', description: 'Shows the key’s name, date and public key. Keys cannot be edited.' },
      { name: 'Delete', type: 'action', description: 'Removes a key that no avatar uses. The default key cannot be deleted.' },
    ],
    usefulness:
      'Without a token anyone with the avatar’s link can use it and spend your minutes. With a key, links only work for visitors your site signed in, for as long as you decide.',
  },
  name: {
    title: 'Encryption Name',
    description: 'A name for the key, so you recognise it when you pick the key of an avatar, for example the site or app that will sign tokens with it.',
    possibleValues: [{ name: 'Text', type: 'string', description: 'Required; at most 100 characters.' }],
    usefulness: 'One key per site or system makes it easy to retire one of them (delete its key) without touching the others.',
  },
  privateKey: {
    title: 'Private key',
    description:
      'The PEM text (PKCS#8, ECDSA P-256) your server signs tokens with (ES256 JWT with the claims avatarId, exp and optionally userId). See the docs for a short Node example.',
    possibleValues: [
      { name: 'Shown once', type: 'rule', description: 'The portal does not keep this private key: copy it now.' },
      { name: 'Keep it secret', type: 'rule', description: 'Store it like a password, on your server only — never in a web page or app that visitors can read.' },
    ],
    usefulness: 'Whoever has the private key can let anyone talk to your avatars. If it leaks, create a new key, switch your avatars to it and delete the old one.',
  },
  defaultKey: {
    title: 'Default key',
    description:
      'Every account has one default key, made for you. The portal keeps its private key (encrypted) and uses it to open your avatars from the portal itself: Connect, the preview and the embed test.',
    possibleValues: [{ name: 'Default', type: 'flag', description: 'Cannot be deleted; its private key is never shown.' }],
    usefulness: 'It lets you try token-protected avatars in the portal without handing any private key to the browser.',
  },
  publicKey: {
    title: 'Public key',
    description: 'The half of the key pair the portal keeps to check signatures (SPKI PEM). It is not secret.',
    possibleValues: [],
    usefulness: 'You can give it to anyone who needs to check tokens you signed, for example your own services.',
  },
};
