ALTER TABLE "live_sessions" ADD COLUMN "page_figures_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "live_sessions" ADD COLUMN "first_frame_ms" integer;--> statement-breakpoint
ALTER TABLE "live_sessions" ADD COLUMN "av_offset_ms" integer;--> statement-breakpoint
ALTER TABLE "live_sessions" ADD COLUMN "dropped_frames" integer;--> statement-breakpoint
ALTER TABLE "live_sessions" ADD COLUMN "visitor_turns" integer;--> statement-breakpoint
ALTER TABLE "live_sessions" ADD COLUMN "provider_errors" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
UPDATE "live_sessions" SET "visitor_turns" = (SELECT count(*) FROM jsonb_array_elements("history") AS e WHERE e->>'role' = 'user');