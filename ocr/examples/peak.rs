//! Shows that `read_pages` streams: reads an hOCR file and prints its pages and lines, its size,
//! and the process's peak RSS (`VmHWM`) after loading the file and after reading it. Reading
//! adds about one page's lines, not a tree of the document.
//!
//! ```text
//! cargo run -p catalog-ocr --example peak -- write /tmp/500.hocr   # a generated 500-page hOCR
//! cargo run -p catalog-ocr --example peak -- /tmp/500.hocr
//! ```

use std::convert::Infallible;
use std::error::Error;

use catalog_ocr::{Format, Options, read_pages};

#[path = "../benches/sample.rs"]
mod sample;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match &args[..] {
        [write, path] if write == "write" => {
            std::fs::write(path, sample::hocr(500))?;
            println!("wrote 500 pages to {path}");
        }
        [path] => {
            let start = peak_kib()?;
            let input = std::fs::read_to_string(path)?;
            let loaded = peak_kib()?;
            let options = Options {
                first_page: 1,
                max_pages: 10_000,
                max_lines_per_page: 1_000,
                max_line_chars: 10_000,
            };
            let mut largest = 0;
            let summary = read_pages(Format::Hocr, &input, &options, |page| {
                largest = largest.max(page.lines.len());
                Ok::<(), Infallible>(())
            })?;
            let read = peak_kib()?;
            println!(
                "pages {}, lines {} (at most {largest} a page)",
                summary.pages, summary.lines
            );
            println!("input {:.1} MiB", input.len() as f64 / 1_048_576.0);
            println!("peak RSS at start {:.1} MiB", start as f64 / 1024.0);
            println!(
                "peak RSS with the input loaded {:.1} MiB",
                loaded as f64 / 1024.0
            );
            println!(
                "peak RSS after reading every page {:.1} MiB (+{:.1} MiB for reading)",
                read as f64 / 1024.0,
                (read - loaded) as f64 / 1024.0
            );
        }
        _ => return Err("usage: peak FILE | peak write FILE".into()),
    }
    Ok(())
}

/// The process's peak resident set (`VmHWM`), in KiB.
fn peak_kib() -> Result<u64, Box<dyn Error>> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .ok_or("no VmHWM in /proc/self/status")?;
    Ok(line.trim().trim_end_matches("kB").trim().parse()?)
}
