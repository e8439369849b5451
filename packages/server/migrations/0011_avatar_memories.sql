CREATE TABLE "avatar_memories" (
	"avatar_id" integer NOT NULL,
	"visitor_id" text NOT NULL,
	"summary" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "avatar_memories_avatar_id_visitor_id_pk" PRIMARY KEY("avatar_id","visitor_id")
);
--> statement-breakpoint
ALTER TABLE "avatar_memories" ADD CONSTRAINT "avatar_memories_avatar_id_avatars_id_fk" FOREIGN KEY ("avatar_id") REFERENCES "public"."avatars"("id") ON DELETE cascade ON UPDATE no action;