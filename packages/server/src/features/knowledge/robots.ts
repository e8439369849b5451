/**
 * A small robots.txt reader (RFC 9309): the group for our user agent (or *), Allow/Disallow with
 * `*` and `$`, the longest match winning and Allow winning ties.
 */
export interface RobotsRules {
  isAllowed(url: URL): boolean;
}

interface Rule {
  allow: boolean;
  pattern: string;
  regex: RegExp;
}

const toRegex = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+?^{}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\\\$$|\$$/, '$')}`,
  );

export function parseRobots(text: string, userAgent: string): RobotsRules {
  const agent = userAgent.toLowerCase();
  const groups: { agents: string[]; rules: Rule[] }[] = [];
  let current: { agents: string[]; rules: Rule[] } | null = null;
  let lastWasAgent = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const match = /^([a-z-]+)\s*:\s*(.*)$/i.exec(line);
    if (!match) continue;
    const field = match[1]!.toLowerCase();
    const value = match[2]!.trim();
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
    current.rules.push({ allow: field === 'allow', pattern: value, regex: toRegex(value) });
  }
  const product = agent.split('/')[0]!;
  const mine = groups.filter((g) => g.agents.some((a) => a !== '*' && product.includes(a)));
  const chosen = mine.length > 0 ? mine : groups.filter((g) => g.agents.includes('*'));
  const rules = chosen.flatMap((g) => g.rules);
  return {
    isAllowed(url) {
      const path = `${url.pathname}${url.search}`;
      let best: Rule | null = null;
      for (const rule of rules) {
        if (!rule.regex.test(path)) continue;
        if (!best || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.allow)) best = rule;
      }
      return best ? best.allow : true;
    },
  };
}

export const allowAll: RobotsRules = { isAllowed: () => true };
