/**
 * The stage's painted background for a plain colour: the colour lit from above, a darker floor
 * of it, and a few out-of-focus light spots — depth instead of a flat fill (issue 28). Radial
 * gradients fading to transparent, not blurred elements: a software compositor recomputes a CSS
 * blur on every frame.
 */
export function softBackdrop(colour: string): string {
  const hex = colour.replace('#', '');
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex.slice(0, 6);
  const n = Number.parseInt(full, 16);
  const rgb = Number.isFinite(n) ? [(n >> 16) & 255, (n >> 8) & 255, n & 255] : [224, 231, 255];
  const at = (k: number, to = 0) => `rgb(${rgb.map((c) => Math.round(c + (to - c) * k)).join(',')})`;
  const alpha = (c: string, a: number) => c.replace('rgb(', 'rgba(').replace(')', `,${a})`);
  const dark = at(0.3);
  const light = at(0.55, 255);
  return [
    `radial-gradient(circle at 14% 18%, rgba(255,255,255,0.55) 0%, rgba(255,255,255,0) 30%)`,
    `radial-gradient(circle at 84% 26%, rgba(255,255,255,0.35) 0%, rgba(255,255,255,0) 22%)`,
    `radial-gradient(circle at 72% 92%, ${alpha(dark, 0.35)} 0%, ${alpha(dark, 0)} 36%)`,
    `radial-gradient(circle at 10% 86%, ${alpha(at(0.15), 0.3)} 0%, ${alpha(at(0.15), 0)} 30%)`,
    `radial-gradient(ellipse 95% 85% at 50% 32%, ${light} 0%, ${at(0)} 55%, ${dark} 135%)`,
  ].join(', ');
}
