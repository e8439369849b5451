/**
 * What an iframe of the avatar page is allowed (its `allow` attribute, the Permissions Policy the
 * host grants): the microphone (the visitor speaks), autoplay (the avatar's voice plays without a
 * click first) and fullscreen (the page's fullscreen button). One list for every snippet the
 * portal shows — the Embed tab, the Docs — and the editor's own preview, so none forgets one.
 */
export const AVATAR_IFRAME_ALLOW = 'microphone; autoplay; fullscreen';
