-- One-time set-up of Countersign's two database roles on a real PostgreSQL cluster (README,
-- "A real PostgreSQL"). Run it with psql as a superuser, or as a role with CREATEROLE (and
-- CREATEDB when the database does not exist yet):
--
--   psql "postgresql://postgres@db.example.com/postgres" \
--     -v owner_role=countersign -v app_role=countersign_app -v database=countersign \
--     -f scripts/db-roles.sql
--
-- Variables (all optional; the defaults are shown):
--   owner_role=countersign      owns the database's tables; migrations and the grant step run as it
--                               (DATABASE_OWNER_URL). On an existing single-role install, name the
--                               role DATABASE_URL used until now: it already owns the tables.
--   app_role=countersign_app    what the console and workers connect as (DATABASE_URL): a LOGIN
--                               role that owns nothing and has no SUPERUSER, CREATEROLE, CREATEDB,
--                               REPLICATION or BYPASSRLS.
--   database=countersign        the console's database; created, owned by owner_role, if missing.
--
-- Passwords: psql asks for each role it creates or when you pass -v set_passwords=1, and hashes it
-- before sending (\password), so it is in neither your shell history nor the server's log.
--
-- The app role's table rights are not set here: `npm start` (with DATABASE_OWNER_URL) applies
-- them after every migration, to every table, including tables later migrations add
-- (lib/db/grant-app-role.ts). The script may be run again; it changes only what is missing.

\set ON_ERROR_STOP on
\if :{?owner_role}
\else
  \set owner_role countersign
\endif
\if :{?app_role}
\else
  \set app_role countersign_app
\endif
\if :{?database}
\else
  \set database countersign
\endif

-- Which roles are new (and so need a password).
SELECT NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'owner_role') AS new_owner,
       NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'app_role') AS new_app,
       :'owner_role' = :'app_role' AS same_role \gset

\if :same_role
  \echo 'owner_role and app_role must be two different roles: the app role must own nothing.'
  \quit
\endif

-- The owner: may log in to run migrations; nothing more is needed beyond owning the database.
\if :new_owner
  CREATE ROLE :"owner_role" LOGIN;
\endif

-- The app role: LOGIN and no attributes (CREATE ROLE's defaults: NOSUPERUSER NOCREATEDB
-- NOCREATEROLE NOREPLICATION NOBYPASSRLS).
\if :new_app
  CREATE ROLE :"app_role" LOGIN;
\else
  ALTER ROLE :"app_role" LOGIN;
\endif

-- Belonging to the owner role would give the app role the owner's powers: take that away.
SELECT format('REVOKE %I FROM %I', :'owner_role', :'app_role')
  WHERE pg_has_role(:'app_role', :'owner_role', 'MEMBER') \gexec

\if :new_owner
  \echo 'Password for the owner role' :owner_role '(DATABASE_OWNER_URL):'
  \password :owner_role
\elif :{?set_passwords}
  \echo 'Password for the owner role' :owner_role '(DATABASE_OWNER_URL):'
  \password :owner_role
\endif
\if :new_app
  \echo 'Password for the app role' :app_role '(DATABASE_URL):'
  \password :app_role
\elif :{?set_passwords}
  \echo 'Password for the app role' :app_role '(DATABASE_URL):'
  \password :app_role
\endif

-- The database, owned by the owner role.
SELECT format('CREATE DATABASE %I OWNER %I', :'database', :'owner_role')
  WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'database') \gexec

\connect :"database"

-- The owner creates the tables in schema public; nobody else may create anything there (the grant
-- step repeats the REVOKE on every start).
GRANT USAGE, CREATE ON SCHEMA public TO :"owner_role";
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"app_role";

-- What to check: the app role must own nothing here.
SELECT format('%s owns %s', pg_get_userbyid(c.relowner), c.relname) AS "app role owns (must be empty)"
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND pg_has_role(:'app_role', c.relowner, 'MEMBER');

\echo
\echo 'Done. Now set DATABASE_OWNER_URL to' :owner_role 'and DATABASE_URL to' :app_role 'on database' :database
\echo 'and run npm start: it applies migrations and the app role''s rights as the owner.'
