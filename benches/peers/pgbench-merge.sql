-- One whole merge as ONE transaction, what catalog does over HTTP as draft, put, submit, approve:
-- a suggestion row, the new item upserted, a commit row with its hash, the suggestion marked
-- merged; committed with synchronous_commit=on. The suggestion's id names the new item.
BEGIN;
INSERT INTO suggestions (author, title, status)
    VALUES ('client-' || :client_id, 'add a person', 'open') RETURNING id AS sid \gset
INSERT INTO items (n, id, type, path, data)
    VALUES (nextval('merged_item_n'), 'bench-' || :sid, 'person', '/people/bench-' || :sid,
            jsonb_build_object('name', jsonb_build_object('he', 'אדם לבדיקה', 'en', 'bench-' || :sid),
                               'slug', 'bench-' || :sid))
    ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data, rev = items.rev + 1;
INSERT INTO merge_commits (suggestion, hash, body)
    SELECT :sid, sha256(convert_to(b::text, 'UTF8')), b
    FROM (SELECT jsonb_build_object('suggestion', :sid, 'author', 'client-' || :client_id,
                                    'changes', jsonb_build_array(i.id), 'data', i.data) AS b
          FROM items i WHERE i.id = 'bench-' || :sid) c
    RETURNING seq AS cseq \gset
UPDATE suggestions SET status = 'merged', merged_commit = :cseq WHERE id = :sid;
END;
