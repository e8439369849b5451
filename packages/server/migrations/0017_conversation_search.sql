ALTER TABLE "live_sessions" ADD COLUMN "search_tsv" tsvector;--> statement-breakpoint
-- The conversation search (ADR 098): the history's texts as English lexemes, rebuilt whenever the
-- history is written (never on the other updates of a live row: heartbeats, billing checks) from
-- what is stored — text redacted before storage stays redacted here; a history emptied or a row
-- deleted takes its lexemes with it. At most 100 000 characters are read (a tsvector holds 1 MB).
CREATE FUNCTION "live_sessions_search_tsv"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_tsv := CASE WHEN jsonb_typeof(NEW.history) = 'array' THEN
    to_tsvector('english'::regconfig, left(coalesce((SELECT string_agg(e->>'text', E'\n') FROM jsonb_array_elements(NEW.history) e), ''), 100000))
  END;
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER "live_sessions_search_tsv" BEFORE INSERT OR UPDATE OF "history" ON "live_sessions" FOR EACH ROW EXECUTE FUNCTION "live_sessions_search_tsv"();--> statement-breakpoint
UPDATE "live_sessions" SET "history" = "history";--> statement-breakpoint
CREATE INDEX "live_sessions_search_idx" ON "live_sessions" USING gin ("search_tsv");
