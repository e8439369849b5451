import type { TAvatarAction } from '@persona/contract';
import { AvatarTagParser, type TagPiece } from './avatar-tags.js';
import { MoodCue } from './mood-cue.js';
import type { ActionSource } from './pipeline.js';

/**
 * One answer's text as it streams, split into what is said and what the avatar does: the brain's
 * avatar tags (avatar-tags.ts) become actions where they stand; an answer without tags so far
 * gets the mood cues of its sentences (mood-cue.ts) instead. `at` counts characters of the
 * text given out so far (the text spoken, shown and remembered).
 */
export type AnswerPiece = { type: 'text'; text: string } | { type: 'action'; action: TAvatarAction; source: ActionSource; at: number };

export class AnswerActions {
  private readonly tags = new AvatarTagParser();
  private readonly cue = new MoodCue();
  private length = 0;
  private tagged = false;

  push(delta: string): AnswerPiece[] {
    return this.shape(this.tags.push(delta), false);
  }

  /** The answer ended: what was held is text, and its last sentence is read. */
  end(): AnswerPiece[] {
    return this.shape(this.tags.end(), true);
  }

  private shape(pieces: TagPiece[], final: boolean): AnswerPiece[] {
    const out: AnswerPiece[] = [];
    for (const p of pieces) {
      if (p.type === 'action') {
        this.tagged = true;
        out.push({ type: 'action', action: p.action, source: 'tag', at: this.length });
        continue;
      }
      out.push(p);
      this.length += p.text.length;
      this.cues(this.cue.push(p.text), out);
    }
    if (final) this.cues(this.cue.end(), out);
    return out;
  }

  private cues(items: ReturnType<MoodCue['push']>, out: AnswerPiece[]) {
    // The brain chose its own moods: no guessing beside them.
    if (this.tagged) return;
    for (const c of items) out.push({ type: 'action', action: { kind: 'mood', mood: c.mood, intensity: c.intensity, durationMs: c.durationMs }, source: 'cue', at: c.at });
  }
}

/** A whole text at once (a line the avatar says itself). */
export function answerActions(text: string): AnswerPiece[] {
  const a = new AnswerActions();
  return [...a.push(text), ...a.end()];
}
