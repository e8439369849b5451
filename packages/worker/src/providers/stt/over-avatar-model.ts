import { CONVERSATION_CORPUS } from './conversation-corpus.js';

/**
 * The offline recogniser's model for speech over the avatar (issue 29, ADR 107). What a visitor
 * says while the avatar talks is, far more often than anything else, a backchannel ("mm-hm",
 * "I see") or a request to stop ("wait", "hold on", "no, I meant…"), and the listener decides on
 * those words alone (options.ts `isBackchannel`, `isStopRequest`). Debian's generic model makes
 * these short, unstressed words unlikely — "stop" came back as "top", "hold on" as "gold on",
 * "okay okay" as "o que que" (ADR 104) — so a segment that begins over the avatar is decoded
 * with the generic model interpolated with these phrases and the conversation corpus: the phrases
 * likelier, any other sentence still heard (a question over the avatar still interrupts it).
 *
 * Every sentence below is one the listener's rules classify (a unit test checks it): the model
 * is biased only toward words the rules act on. Written for this project from those rules, not
 * from the bench's sound list.
 */
export const OVER_AVATAR_PHRASES = `
Mm-hm. Mhm. Mm. Hmm. Hm. Uh-huh. Uh huh. Huh. Oh. Ah. Aha. Wow. Oh wow. Ha ha. Ha.
Yeah. Yes. Yep. Yup. Okay. Ok. Sure. Alright. Right. Right right. Okay okay. Yeah yeah. Yes yes. Absolutely.
Cool. Nice. Great. Interesting. Exactly. True. Indeed. Totally. Gotcha. Oh nice. Oh great. Oh cool. Oh right.
I see. Oh I see. Yeah I see. Got it. Okay got it. Makes sense. That makes sense. Of course. Oh no. No problem. No worries. Fair enough.
Wait. Stop. Hold on. Hang on. Hold it. Pause. Excuse me. One second. One moment. One sec. Just a second. Just a moment. Just a minute. Just a sec.
Wait a second. Wait a minute. Wait wait. Stop stop. Stop please. Okay wait. Okay stop. Um wait. Shut up. Be quiet.
No. Nope. Sorry. Actually. Actually no. No no. No sorry. Sorry no.
No I meant. No I mean. Sorry I meant. Actually I meant. No that's not what I asked. Sorry that's not what I asked. No that is not what I asked.
No not that. No I said. No I asked. No I didn't. No you misunderstood. Sorry you misunderstood.
`;

/** The over-the-avatar model's weight in the interpolation (λ; ADR 107: chosen on the bench). */
export const OVER_AVATAR_WEIGHT = 0.6;
/** Counts of the phrases relative to the conversation corpus. */
export const OVER_AVATAR_PHRASE_WEIGHT = 4;

/** The weighted texts of the over-the-avatar model (deterministic). */
export function overAvatarTexts(): { text: string; weight: number }[] {
  return [
    { text: OVER_AVATAR_PHRASES, weight: OVER_AVATAR_PHRASE_WEIGHT },
    { text: CONVERSATION_CORPUS, weight: 1 },
  ];
}
