CREATE TABLE "avatars" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "avatars_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 10001 CACHE 1),
	"user_id" integer NOT NULL,
	"name" text NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "call_daily_usage" (
	"user_id" integer NOT NULL,
	"avatar_id" integer NOT NULL,
	"day" date NOT NULL,
	"avatar_name" text NOT NULL,
	"total_seconds" bigint NOT NULL,
	"call_count" integer NOT NULL,
	CONSTRAINT "call_daily_usage_user_id_day_avatar_id_pk" PRIMARY KEY("user_id","day","avatar_id")
);
--> statement-breakpoint
CREATE TABLE "call_records" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "call_records_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"avatar_id" integer NOT NULL,
	"avatar_name" text NOT NULL,
	"session_id" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone NOT NULL,
	"duration_seconds" integer NOT NULL,
	"client_ip" text
);
--> statement-breakpoint
CREATE TABLE "plan_requests" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "plan_requests_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"current_sub_type" integer NOT NULL,
	"requested_sub_type" integer NOT NULL,
	"dh_type" integer DEFAULT 2 NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" integer
);
--> statement-breakpoint
CREATE TABLE "workers" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "workers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"vps_id" text NOT NULL,
	"name" text NOT NULL,
	"address" text DEFAULT '' NOT NULL,
	"private_ip" text DEFAULT '' NOT NULL,
	"remote_ip" text DEFAULT '' NOT NULL,
	"web_socket" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'DISCONNECTED' NOT NULL,
	"session_id" text,
	"assigned_user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_connect_time" timestamp with time zone,
	"last_ping_time" timestamp with time zone,
	"last_used_time" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "avatars" ADD CONSTRAINT "avatars_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_daily_usage" ADD CONSTRAINT "call_daily_usage_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_records" ADD CONSTRAINT "call_records_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_requests" ADD CONSTRAINT "plan_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_requests" ADD CONSTRAINT "plan_requests_decided_by_users_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "avatars_user_idx" ON "avatars" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "call_records_user_started_idx" ON "call_records" USING btree ("user_id","started_at");--> statement-breakpoint
CREATE INDEX "call_records_avatar_started_idx" ON "call_records" USING btree ("avatar_id","started_at");--> statement-breakpoint
CREATE INDEX "call_records_session_idx" ON "call_records" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "plan_requests_user_idx" ON "plan_requests" USING btree ("user_id","status");--> statement-breakpoint
CREATE INDEX "plan_requests_status_idx" ON "plan_requests" USING btree ("status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "workers_vps_id_idx" ON "workers" USING btree ("vps_id");