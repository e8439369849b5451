CREATE TABLE "login_as_tickets" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "login_as_tickets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"ticket_hash" text NOT NULL,
	"admin_session_id" integer NOT NULL,
	"target_user_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "parent_session_id" integer;--> statement-breakpoint
ALTER TABLE "login_as_tickets" ADD CONSTRAINT "login_as_tickets_admin_session_id_sessions_id_fk" FOREIGN KEY ("admin_session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "login_as_tickets" ADD CONSTRAINT "login_as_tickets_target_user_id_users_id_fk" FOREIGN KEY ("target_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "login_as_tickets_hash_idx" ON "login_as_tickets" USING btree ("ticket_hash");--> statement-breakpoint
CREATE INDEX "login_as_tickets_expiry_idx" ON "login_as_tickets" USING btree ("expires_at");--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_parent_session_id_sessions_id_fk" FOREIGN KEY ("parent_session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sessions_parent_idx" ON "sessions" USING btree ("parent_session_id");--> statement-breakpoint
-- Login-as sessions made before tickets (7 days, bound to no admin session) end now.
UPDATE "sessions" SET "revoked_at" = now() WHERE "admin_proxy" AND "revoked_at" IS NULL;
