CREATE TABLE "avatar_privacy" (
	"avatar_id" integer PRIMARY KEY NOT NULL,
	"redaction" jsonb NOT NULL,
	"retention_mode" text DEFAULT 'forever' NOT NULL,
	"retention_days" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "live_sessions" ADD COLUMN "turns_kept" integer;--> statement-breakpoint
ALTER TABLE "live_sessions" ADD COLUMN "text_removed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "avatar_privacy" ADD CONSTRAINT "avatar_privacy_avatar_id_avatars_id_fk" FOREIGN KEY ("avatar_id") REFERENCES "public"."avatars"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "live_sessions_text_kept_idx" ON "live_sessions" USING btree ("avatar_id","started_at") WHERE text_removed_at is null;--> statement-breakpoint
CREATE INDEX "live_sessions_text_removed_idx" ON "live_sessions" USING btree ("text_removed_at") WHERE text_removed_at is not null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_session_body_idx" ON "webhook_deliveries" USING btree ("session_id") WHERE body is not null;