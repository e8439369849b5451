CREATE TABLE "worker_credentials" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "worker_credentials_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"vps_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"issued_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "worker_credentials_token_idx" ON "worker_credentials" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "worker_credentials_vps_idx" ON "worker_credentials" USING btree ("vps_id");