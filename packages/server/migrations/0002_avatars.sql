CREATE TABLE "avatar_media" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "avatar_media_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"avatar_id" integer,
	"kind" text NOT NULL,
	"storage_key" text NOT NULL,
	"name" text NOT NULL,
	"mime" text NOT NULL,
	"size" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "avatars_user_idx";--> statement-breakpoint
ALTER TABLE "avatars" ADD COLUMN "nlp_engine" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "avatars" ADD COLUMN "dh_type" integer DEFAULT 2 NOT NULL;--> statement-breakpoint
ALTER TABLE "avatars" ADD COLUMN "setup_mode" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "avatars" ADD COLUMN "config" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "avatars" ADD COLUMN "photo_url" text;--> statement-breakpoint
ALTER TABLE "avatar_media" ADD CONSTRAINT "avatar_media_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "avatar_media" ADD CONSTRAINT "avatar_media_avatar_id_avatars_id_fk" FOREIGN KEY ("avatar_id") REFERENCES "public"."avatars"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "avatar_media_avatar_idx" ON "avatar_media" USING btree ("avatar_id");--> statement-breakpoint
CREATE INDEX "avatar_media_user_idx" ON "avatar_media" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "avatars_user_idx" ON "avatars" USING btree ("user_id","updated_at");