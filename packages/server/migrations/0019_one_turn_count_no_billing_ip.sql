-- One count of the visitor's turns (ADR 097 amended): retention kept it in "turns_kept", analytics
-- in "visitor_turns" (ADR 099) - the same fact. A session whose text retention removed has its
-- count in "turns_kept" only.
UPDATE "live_sessions" SET "visitor_turns" = "turns_kept" WHERE "turns_kept" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "live_sessions" DROP COLUMN "turns_kept";--> statement-breakpoint
-- A call record keeps what billing needs: the visitor's address was written and never read, and a
-- visitor's erasure could not reach it (ADR 097 amended).
ALTER TABLE "call_records" DROP COLUMN "client_ip";
