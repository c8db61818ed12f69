-- One small item change a commit, as catalog-bench append does: a note set on a random item
-- without a body (items 0..small-1), one transaction, committed with synchronous_commit=on.
\set n random(0, :small - 1)
UPDATE items SET data = jsonb_set(data, '{note}', to_jsonb('edit ' || :client_id || '.' || :n)), rev = rev + 1 WHERE n = :n;
