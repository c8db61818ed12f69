-- The PostgreSQL baseline's tables: the same items catalog holds, and the same commits' JSON.
CREATE TABLE items (
    n bigint PRIMARY KEY,
    id text NOT NULL UNIQUE,
    type text NOT NULL,
    path text,
    rev bigint NOT NULL DEFAULT 1,
    data jsonb NOT NULL
);
CREATE TABLE commits (
    seq bigint PRIMARY KEY,
    body json NOT NULL
);
-- The merge baseline (issue 17, benches/peers/pgbench-merge.sql): a suggestion row, the commit
-- that merges it (its hash beside its body), new items numbered above the generated ones.
CREATE TABLE suggestions (
    id bigserial PRIMARY KEY,
    author text NOT NULL,
    title text NOT NULL,
    status text NOT NULL,
    merged_commit bigint,
    created timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE merge_commits (
    seq bigserial PRIMARY KEY,
    suggestion bigint NOT NULL REFERENCES suggestions (id),
    hash bytea NOT NULL,
    body jsonb NOT NULL
);
CREATE SEQUENCE merged_item_n START 1000000000000;
