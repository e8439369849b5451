import { z } from 'zod';

/** What the right-hand info panel shows for a field (portal spec section 3, "Info panel item"). */
export const ZInfoPanelValue = z.object({
  name: z.string(),
  type: z.string(),
  description: z.string(),
  /** When this value applies or is required, if it depends on something. */
  condition: z.string().optional(),
});
export type TInfoPanelValue = z.infer<typeof ZInfoPanelValue>;

export const ZInfoPanelItem = z.object({
  title: z.string(),
  description: z.string(),
  possibleValues: z.array(ZInfoPanelValue),
  /** The 'Why is this important?' section. */
  usefulness: z.string(),
});
export type TInfoPanelItem = z.infer<typeof ZInfoPanelItem>;
