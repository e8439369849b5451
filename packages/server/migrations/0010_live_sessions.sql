CREATE TABLE "live_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"avatar_id" integer NOT NULL,
	"owner_user_id" integer NOT NULL,
	"avatar_name" text NOT NULL,
	"worker_id" integer NOT NULL,
	"visitor_id" text,
	"client_ip" text NOT NULL,
	"origin" text,
	"client" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"text_only" boolean DEFAULT false NOT NULL,
	"echo" boolean DEFAULT false NOT NULL,
	"resume_hash" text NOT NULL,
	"claimed_jti" text,
	"ticket_jti" text NOT NULL,
	"oauth_subject" text,
	"history" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"last_heartbeat_at" timestamp with time zone NOT NULL,
	"billing_checked_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"end_code" text
);
--> statement-breakpoint
CREATE INDEX "live_sessions_open_idx" ON "live_sessions" USING btree ("worker_id") WHERE ended_at is null;--> statement-breakpoint
CREATE INDEX "live_sessions_avatar_started_idx" ON "live_sessions" USING btree ("avatar_id","started_at");--> statement-breakpoint
CREATE INDEX "live_sessions_ip_started_idx" ON "live_sessions" USING btree ("client_ip","started_at");