import { AnalyticsLimits, type TFrequentQuestions } from '@persona/contract';

/**
 * Two phrasings whose embeddings are at least this similar (cosine) are one question. Measured with
 * the default local model (Universal Sentence Encoder): paraphrases 0.48–0.65 ("what are your opening
 * hours" / "when do you open" 0.48, "how do I get a refund" / "can I have my money back" 0.54),
 * unrelated questions 0.28–0.33 (ADR 102).
 */
export const SAME_QUESTION = 0.45;

/** A visitor turn worth grouping: at least three words, at most 300 characters. */
export const isQuestion = (text: string) => text.length <= 300 && text.trim().split(/\s+/).length >= 3;

/** Lower case, spaces collapsed, trailing punctuation dropped: "Opening hours?" and "opening hours" are one phrasing. */
export const phrasing = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim().replace(/[\s?.!]+$/u, '');

const unit = (v: number[]) => {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
};
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

/**
 * Groups visitor turns by meaning (ADR 102): the distinct phrasings, the most frequent first, each
 * joins the first group whose leading phrasing is at least SAME_QUESTION similar, else leads a new
 * one. Greedy and leader-based — deterministic, O(phrasings × groups), no k to choose.
 */
export async function groupQuestions(turns: readonly { text: string; sessionId: string }[], embed: (texts: string[]) => Promise<number[][]>): Promise<TFrequentQuestions['groups']> {
  const byPhrasing = new Map<string, { text: string; count: number; sessions: Set<string> }>();
  for (const t of turns) {
    if (!isQuestion(t.text)) continue;
    const key = phrasing(t.text);
    const p = byPhrasing.get(key) ?? { text: t.text.trim(), count: 0, sessions: new Set<string>() };
    p.count++;
    p.sessions.add(t.sessionId);
    byPhrasing.set(key, p);
  }
  const phrasings = [...byPhrasing.entries()].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]));
  if (phrasings.length === 0) return [];
  const vectors = (await embed(phrasings.map(([key]) => key))).map(unit);
  const groups: { leader: number[]; members: { text: string; count: number; sessions: Set<string> }[] }[] = [];
  phrasings.forEach(([, p], i) => {
    const v = vectors[i]!;
    const home = groups.find((g) => dot(g.leader, v) >= SAME_QUESTION);
    if (home) home.members.push(p);
    else groups.push({ leader: v, members: [p] });
  });
  return groups
    .map((g) => {
      const sessions = new Set<string>();
      for (const m of g.members) for (const s of m.sessions) sessions.add(s);
      return { text: g.members[0]!.text, count: g.members.reduce((n, m) => n + m.count, 0), sessions: sessions.size, variants: g.members.slice(1, 1 + AnalyticsLimits.questionVariants).map((m) => m.text) };
    })
    .sort((a, b) => b.count - a.count || b.sessions - a.sessions)
    .slice(0, AnalyticsLimits.questionGroups);
}
