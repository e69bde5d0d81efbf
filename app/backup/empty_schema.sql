-- Run first, in the restore's one transaction (app/backup/postgres.py and the compose backup
-- service, docker/tensorcamp-backup): the schema is emptied, so that the backup comes back as
-- it was (tables a newer migration added go too); an error later rolls this back as well.
SET client_min_messages = warning;
DO $$
DECLARE
  item record;
BEGIN
  FOR item IN SELECT viewname AS name FROM pg_views WHERE schemaname = 'public' LOOP
    EXECUTE format('DROP VIEW IF EXISTS public.%I CASCADE', item.name);
  END LOOP;
  FOR item IN SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' LOOP
    EXECUTE format('DROP TABLE IF EXISTS public.%I CASCADE', item.name);
  END LOOP;
  FOR item IN SELECT sequencename AS name FROM pg_sequences WHERE schemaname = 'public' LOOP
    EXECUTE format('DROP SEQUENCE IF EXISTS public.%I CASCADE', item.name);
  END LOOP;
  FOR item IN
    SELECT t.typname AS name FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname = 'public' AND t.typtype = 'e'
  LOOP
    EXECUTE format('DROP TYPE IF EXISTS public.%I CASCADE', item.name);
  END LOOP;
END $$;
