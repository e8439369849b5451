import { describe, expect, it } from 'vitest';
import { softBackdrop } from './backdrop';

describe('soft backdrop', () => {
  it('paints the colour with depth: lit above, darker below, light spots', () => {
    const css = softBackdrop('#E0E7FF');
    expect(css.match(/radial-gradient/g)).toHaveLength(5);
    expect(css).toContain('rgb(224,231,255) 55%');
    // Darker towards the floor than the colour itself.
    expect(css).toContain('rgb(157,162,179)');
  });

  it('takes short colours, and falls back on a soft default for anything else', () => {
    expect(softBackdrop('#fff')).toContain('rgb(255,255,255) 55%');
    expect(softBackdrop('nonsense')).toContain('rgb(224,231,255) 55%');
  });
});
