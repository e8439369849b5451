ALTER TABLE "oauth_grants" ALTER COLUMN "session_hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "code_hash" text;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "code_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "browser_hash" text;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_grants_code_idx" ON "oauth_grants" USING btree ("code_hash");