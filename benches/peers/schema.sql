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
