ALTER TABLE "live_sessions" ADD COLUMN "channel" text;--> statement-breakpoint
ALTER TABLE "live_sessions" ADD COLUMN "voice_turns" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "live_sessions" ADD COLUMN "voice_p50_ms" integer;--> statement-breakpoint
CREATE INDEX "live_sessions_owner_started_idx" ON "live_sessions" USING btree ("owner_user_id","started_at","id");--> statement-breakpoint
CREATE INDEX "live_sessions_started_idx" ON "live_sessions" USING btree ("started_at","id");