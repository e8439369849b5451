/**
 * A small robots.txt reader (RFC 9309): the group for our user agent (or *), Allow/Disallow with
 * `*` and `$`, the longest match winning and Allow winning ties.
 *
 * Patterns are matched by a linear scanner, never a RegExp: `*` as a backtracking `.*` made
 * `Disallow: /a*a*a*a*a*a*a*a*a*a*b` against a 60-character path take minutes (issue 9). Input is
 * capped too: the file, the number of rules, the length of a rule and of the path matched.
 */
export interface RobotsRules {
  isAllowed(url: URL): boolean;
}

export const ROBOTS_LIMITS = {
  /** RFC 9309 asks crawlers to read at least 500 KiB; more is ignored. */
  maxBytes: 512 * 1024,
  maxRules: 2000,
  maxPatternLength: 512,
  maxPathLength: 2048,
} as const;

interface Rule {
  allow: boolean;
  /** The pattern's length (the longest match wins). */
  length: number;
  matcher: RobotsPattern;
}

/**
 * A compiled pattern: the literal pieces between `*`s, each with its KMP failure table. A path
 * matches when the first piece is its prefix and every following piece occurs after the previous
 * one (leftmost occurrence: taking the earliest place for a piece never loses a match); a final
 * `$` pins the last piece to the end. Each piece scans only the text after the previous piece's
 * match, so a match costs O(path + pattern) whatever the input: no backtracking, no RegExp.
 */
export interface RobotsPattern {
  matches(path: string): boolean;
}

function failureTable(piece: string): Int32Array {
  const fail = new Int32Array(piece.length);
  let k = 0;
  for (let i = 1; i < piece.length; i++) {
    while (k > 0 && piece[i] !== piece[k]) k = fail[k - 1]!;
    if (piece[i] === piece[k]) k++;
    fail[i] = k;
  }
  return fail;
}

/** The end index of the first occurrence of `piece` in `text` at or after `from`, or -1 (KMP). */
function findAfter(text: string, from: number, piece: string, fail: Int32Array): number {
  if (piece.length === 0) return from;
  let k = 0;
  for (let i = from; i < text.length; i++) {
    while (k > 0 && text[i] !== piece[k]) k = fail[k - 1]!;
    if (text[i] === piece[k]) k++;
    if (k === piece.length) return i + 1;
  }
  return -1;
}

export function compileRobotsPattern(pattern: string): RobotsPattern {
  const anchored = pattern.endsWith('$');
  const pieces = (anchored ? pattern.slice(0, -1) : pattern).split('*');
  const first = pieces[0]!;
  const middle = pieces.slice(1).map((piece) => ({ piece, fail: failureTable(piece) }));
  return {
    matches(path) {
      if (!path.startsWith(first)) return false;
      if (middle.length === 0) return !anchored || path.length === first.length;
      let pos = first.length;
      // With `$`, the last piece must end the path: search the others before it.
      const last = anchored ? middle[middle.length - 1]! : null;
      const limit = last ? path.length - last.piece.length : path.length;
      if (limit < pos) return false;
      const searched = last ? path.slice(0, limit) : path;
      for (const m of last ? middle.slice(0, -1) : middle) {
        const end = findAfter(searched, pos, m.piece, m.fail);
        if (end < 0) return false;
        pos = end;
      }
      return last ? path.endsWith(last.piece) : true;
    },
  };
}

/** Whether `path` is matched by a robots.txt pattern (`*` any run of characters, final `$` the end). */
export const matchRobotsPattern = (pattern: string, path: string) => compileRobotsPattern(pattern).matches(path);

export function parseRobots(text: string, userAgent: string): RobotsRules {
  const agent = userAgent.toLowerCase();
  const groups: { agents: string[]; rules: Rule[] }[] = [];
  let current: { agents: string[]; rules: Rule[] } | null = null;
  let lastWasAgent = false;
  let ruleCount = 0;
  for (const raw of text.slice(0, ROBOTS_LIMITS.maxBytes).split('\n')) {
    const hash = raw.indexOf('#');
    const line = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (!current || (field !== 'allow' && field !== 'disallow')) continue;
    if (field === 'disallow' && value === '') continue;
    if (ruleCount >= ROBOTS_LIMITS.maxRules || value.length > ROBOTS_LIMITS.maxPatternLength) continue;
    // Runs of `*` mean the same as one.
    let pattern = '';
    for (const ch of value) if (ch !== '*' || !pattern.endsWith('*')) pattern += ch;
    current.rules.push({ allow: field === 'allow', length: pattern.length, matcher: compileRobotsPattern(pattern) });
    ruleCount++;
  }
  const product = agent.split('/')[0]!;
  const mine = groups.filter((g) => g.agents.some((a) => a !== '*' && product.includes(a)));
  const chosen = mine.length > 0 ? mine : groups.filter((g) => g.agents.includes('*'));
  const rules = chosen.flatMap((g) => g.rules);
  return {
    isAllowed(url) {
      const path = `${url.pathname}${url.search}`.slice(0, ROBOTS_LIMITS.maxPathLength);
      let best: Rule | null = null;
      for (const rule of rules) {
        if (!rule.matcher.matches(path)) continue;
        if (!best || rule.length > best.length || (rule.length === best.length && rule.allow)) best = rule;
      }
      return best ? best.allow : true;
    },
  };
}

export const allowAll: RobotsRules = { isAllowed: () => true };
