//! `catalog.sqlite`: `items` (every live item's answer), one `type_<name>` table per kind of item
//! (its `data` as JSON text), `commits` (the log up to the edition's commit), and `edition` (what
//! the file is). Every table is indexed by id, and the item tables by path too.

use std::collections::HashSet;
use std::path::Path;

use catalog_projector::StoredItem;
use rusqlite::{Connection, params};

use crate::Error;

const SCHEMA: &str = "
CREATE TABLE edition (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE items (
    id TEXT PRIMARY KEY, type TEXT NOT NULL, path TEXT, rev INTEGER NOT NULL,
    seq INTEGER NOT NULL, at TEXT NOT NULL, json TEXT NOT NULL
);
CREATE INDEX items_path ON items(path);
CREATE INDEX items_type ON items(type);
CREATE TABLE commits (
    seq INTEGER PRIMARY KEY, at TEXT NOT NULL, hash TEXT NOT NULL, message TEXT NOT NULL,
    author TEXT NOT NULL, merged_by TEXT NOT NULL, suggestion INTEGER, json TEXT NOT NULL
);
";

/// A kind's table name, quoted: kinds a catalog defines are named by people, and the prefix keeps
/// them clear of `items`, `commits` and `edition`.
fn type_table(ty: &str) -> String {
    format!("\"type_{}\"", ty.replace('"', "\"\""))
}

fn index_name(ty: &str, column: &str) -> String {
    format!("\"type_{}_{column}\"", ty.replace('"', "\"\""))
}

/// Writes the file at `path` (which must not exist) in one transaction.
pub(crate) struct SqliteDump {
    conn: Connection,
    types: HashSet<String>,
}

impl SqliteDump {
    pub(crate) fn create(path: &Path) -> Result<SqliteDump, Error> {
        let conn = Connection::open(path)?;
        // Written once by one process and never changed: no journal to leave beside it.
        conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN;")?;
        conn.execute_batch(SCHEMA)?;
        Ok(SqliteDump {
            conn,
            types: HashSet::new(),
        })
    }

    pub(crate) fn note(&self, key: &str, value: &str) -> Result<(), Error> {
        self.conn.execute(
            "INSERT INTO edition (key, value) VALUES (?1, ?2)",
            params![key, value],
        )?;
        Ok(())
    }

    pub(crate) fn item(&mut self, item: &StoredItem) -> Result<(), Error> {
        let ty = item.ty.as_str();
        if !self.types.contains(ty) {
            let table = type_table(ty);
            self.conn.execute_batch(&format!(
                "CREATE TABLE {table} (id TEXT PRIMARY KEY, path TEXT, rev INTEGER NOT NULL, \
                 data TEXT NOT NULL); CREATE INDEX {} ON {table}(path);",
                index_name(ty, "path")
            ))?;
            self.types.insert(ty.to_owned());
        }
        let json =
            std::str::from_utf8(&item.json).map_err(|_| Error::NotUtf8(item.id.to_string()))?;
        let answer: serde_json::Value = serde_json::from_str(json)?;
        let id = item.id.to_string();
        // SQLite integers are signed 64-bit; seqs and revisions stay far below that.
        let (rev, seq) = (sql_int(item.rev.0), sql_int(item.seq.0));
        self.conn
            .prepare_cached(
                "INSERT INTO items (id, type, path, rev, seq, at, json) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![id, ty, item.path, rev, seq, item.at, json])?;
        self.conn
            .prepare_cached(&format!(
                "INSERT INTO {} (id, path, rev, data) VALUES (?1, ?2, ?3, ?4)",
                type_table(ty)
            ))?
            .execute(params![id, item.path, rev, answer["data"].to_string()])?;
        Ok(())
    }

    /// One commit, from the JSON `/v1/commits` serves for it.
    pub(crate) fn commit(&mut self, json: &[u8]) -> Result<(), Error> {
        let c: serde_json::Value = serde_json::from_slice(json)?;
        let text = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
        self.conn
            .prepare_cached(
                "INSERT INTO commits (seq, at, hash, message, author, merged_by, suggestion, json) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                c["seq"].as_i64(),
                text("at"),
                text("hash"),
                text("message"),
                text("author"),
                text("mergedBy"),
                c["suggestion"].as_i64(),
                String::from_utf8_lossy(json)
            ])?;
        Ok(())
    }

    /// Commits the transaction and closes the file.
    pub(crate) fn finish(self) -> Result<(), Error> {
        self.conn.execute_batch("COMMIT; VACUUM;")?;
        self.conn.close().map_err(|(_, e)| Error::from(e))
    }
}

fn sql_int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
