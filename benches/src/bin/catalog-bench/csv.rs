//! Just enough CSV for PostgreSQL's `COPY ... (FORMAT csv)`: every field quoted, quotes doubled.

use std::io::{self, Write};

/// Writes one row; `None` is an empty unquoted field, which `COPY` reads as NULL.
pub fn row(out: &mut impl Write, fields: &[Option<&str>]) -> io::Result<()> {
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        if let Some(text) = field {
            out.write_all(b"\"")?;
            out.write_all(text.replace('"', "\"\"").as_bytes())?;
            out.write_all(b"\"")?;
        }
    }
    out.write_all(b"\n")
}
