/**
 * A small robots.txt reader (RFC 9309): the group for our user agent (or *), Allow/Disallow with
 * `*` and `$`, the longest match winning and Allow winning ties.
 *
 * Patterns are matched by a linear scanner, never a RegExp: `*` as a backtracking `.*` made
 * `Disallow: /a*a*a*a*a*a*a*a*a*a*b` against a 60-character path take minutes. Input is
 * capped too: the file, the number of rules, the length of a rule and of the path matched.
 *
 * Rules are indexed by their literal prefix (the text before the first `*` or `$`) in a trie, so a
 * path only tries the rules whose prefix it starts with (all 2,000 rules of a file tried for
 * each of 240 links took 20 s). Every match counts its work (characters compared) on a
 * `WorkMeter`, so a crawl can stop at a budget whatever the file says (a file whose rules all
 * start with `/*` defeats any index). This runs in the extraction threads (extract-jobs.ts), never
 * on the thread that answers requests.
 */
export interface RobotsRules {
  /** Whether the URL may be fetched; `meter` (if given) is charged with the work done. */
  isAllowed(url: URL, meter?: WorkMeter): boolean;
  /** The rules kept (after the caps), for tests and logs. */
  readonly ruleCount: number;
}

/** Work done, in characters compared (roughly one unit a nanosecond or two on a server core). */
export interface WorkMeter {
  spent: number;
}

export const ROBOTS_LIMITS = {
  /** RFC 9309 asks crawlers to read at least 500 KiB; more is ignored. */
  maxBytes: 512 * 1024,
  /** Rules kept from the whole file (was 2,000; large real sites list a few hundred). */
  maxRules: 1000,
  /** Characters of one rule (was 512); longer rules are ignored. */
  maxPatternLength: 256,
  /** Characters of path and query matched (was 2,048). */
  maxPathLength: 1024,
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
  /** The literal text every matching path starts with. */
  readonly prefix: string;
  matches(path: string, meter?: WorkMeter): boolean;
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

/** The end index of the first occurrence of `piece` in `text[from, limit)` or -1 (KMP); charges the characters read. */
function findAfter(text: string, from: number, limit: number, piece: string, fail: Int32Array, meter: WorkMeter | undefined): number {
  if (piece.length === 0) return from;
  let k = 0;
  let i = from;
  for (; i < limit; i++) {
    while (k > 0 && text[i] !== piece[k]) k = fail[k - 1]!;
    if (text[i] === piece[k]) k++;
    if (k === piece.length) break;
  }
  if (meter) meter.spent += i - from + 1;
  return k === piece.length ? i + 1 : -1;
}

export function compileRobotsPattern(pattern: string): RobotsPattern {
  const anchored = pattern.endsWith('$');
  const pieces = (anchored ? pattern.slice(0, -1) : pattern).split('*');
  const first = pieces[0]!;
  const middle = pieces.slice(1).map((piece) => ({ piece, fail: failureTable(piece) }));
  const last = anchored && middle.length > 0 ? middle[middle.length - 1]! : null;
  const searchedPieces = last ? middle.slice(0, -1) : middle;
  return {
    prefix: first,
    matches(path, meter) {
      if (meter) meter.spent += first.length + 1;
      if (!path.startsWith(first)) return false;
      if (middle.length === 0) return !anchored || path.length === first.length;
      let pos = first.length;
      // With `$`, the last piece must end the path: search the others before it.
      const limit = last ? path.length - last.piece.length : path.length;
      if (limit < pos) return false;
      for (const m of searchedPieces) {
        const end = findAfter(path, pos, limit, m.piece, m.fail, meter);
        if (end < 0) return false;
        pos = end;
      }
      if (!last) return true;
      if (meter) meter.spent += last.piece.length;
      return path.endsWith(last.piece);
    },
  };
}

/** Whether `path` is matched by a robots.txt pattern (`*` any run of characters, final `$` the end). */
export const matchRobotsPattern = (pattern: string, path: string) => compileRobotsPattern(pattern).matches(path);

/** A character trie of the rules' literal prefixes: the rules at a node all start with the path read so far. */
interface PrefixNode {
  rules: Rule[];
  next: Map<string, PrefixNode> | null;
}

function indexRules(rules: Rule[]): PrefixNode {
  const root: PrefixNode = { rules: [], next: null };
  for (const rule of rules) {
    let node = root;
    for (const ch of rule.matcher.prefix) {
      node.next ??= new Map();
      let child = node.next.get(ch);
      if (!child) node.next.set(ch, (child = { rules: [], next: null }));
      node = child;
    }
    node.rules.push(rule);
  }
  return root;
}

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
  const index = indexRules(rules);
  return {
    ruleCount: rules.length,
    isAllowed(url, meter) {
      const path = `${url.pathname}${url.search}`.slice(0, ROBOTS_LIMITS.maxPathLength);
      let best: Rule | null = null;
      const consider = (node: PrefixNode) => {
        for (const rule of node.rules) {
          if (!rule.matcher.matches(path, meter)) continue;
          if (!best || rule.length > best.length || (rule.length === best.length && rule.allow)) best = rule;
        }
      };
      // Walk the path down the trie: only rules whose literal prefix the path starts with are tried.
      let node: PrefixNode | undefined = index;
      consider(node);
      for (let i = 0; i < path.length && node.next; i++) {
        node = node.next.get(path[i]!);
        if (!node) break;
        if (meter) meter.spent++;
        consider(node);
      }
      return best ? (best as Rule).allow : true;
    },
  };
}

export const allowAll: RobotsRules = { isAllowed: () => true, ruleCount: 0 };

/** Rules parsed once per robots.txt text in a thread (a crawl sends the same text with each job). */
let cached: { text: string; userAgent: string; rules: RobotsRules } | null = null;
export function cachedRobots(text: string, userAgent: string): RobotsRules {
  if (cached?.text !== text || cached.userAgent !== userAgent) cached = { text, userAgent, rules: parseRobots(text, userAgent) };
  return cached.rules;
}
