ALTER TABLE "live_sessions" ADD COLUMN "page_figures_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "live_sessions" ADD COLUMN "first_frame_ms" integer;--> statement-breakpoint
ALTER TABLE "live_sessions" ADD COLUMN "av_offset_ms" integer;--> statement-breakpoint
ALTER TABLE "live_sessions" ADD COLUMN "dropped_frames" integer;