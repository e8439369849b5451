CREATE TABLE "custom_avatars" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "custom_avatars_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"request_id" integer,
	"name" text NOT NULL,
	"dh_type" integer DEFAULT 1 NOT NULL,
	"thumbnail_key" text NOT NULL,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "image_avatar_requests" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "image_avatar_requests_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"name" text NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"photo_key" text NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" integer
);
--> statement-breakpoint
ALTER TABLE "custom_avatars" ADD CONSTRAINT "custom_avatars_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_avatars" ADD CONSTRAINT "custom_avatars_request_id_image_avatar_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."image_avatar_requests"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_avatar_requests" ADD CONSTRAINT "image_avatar_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_avatar_requests" ADD CONSTRAINT "image_avatar_requests_decided_by_users_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "custom_avatars_user_idx" ON "custom_avatars" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "image_avatar_requests_status_idx" ON "image_avatar_requests" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "image_avatar_requests_user_idx" ON "image_avatar_requests" USING btree ("user_id");