/** How many avatars the minutes chart shows at most (the rest are in the table). */
export const CHART_MAX_AVATARS = 20;
