CREATE TABLE "knowledge_uploads" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "knowledge_uploads_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"storage_key" text NOT NULL,
	"max_bytes" bigint NOT NULL,
	"size" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "knowledge_uploads_storage_key_unique" UNIQUE("storage_key")
);
--> statement-breakpoint
ALTER TABLE "knowledge_uploads" ADD CONSTRAINT "knowledge_uploads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "knowledge_uploads_user_idx" ON "knowledge_uploads" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "knowledge_uploads_created_idx" ON "knowledge_uploads" USING btree ("created_at");