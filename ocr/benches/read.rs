//! Reading a 500-page Tesseract-style hOCR (300 Hebrew words a page) through `read_pages`,
//! beside quick-xml merely tokenising the same input: how close to raw XML reading we are.
//!
//! `cargo bench -p catalog-ocr --bench read`

use std::convert::Infallible;
use std::hint::black_box;
use std::time::Duration;

use catalog_ocr::{Format, Options, read_pages};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quick_xml::Reader;
use quick_xml::events::Event;

#[path = "sample.rs"]
mod sample;

fn read(c: &mut Criterion) {
    let input = sample::hocr(500);
    let options = Options {
        first_page: 1,
        max_pages: 10_000,
        max_lines_per_page: 1_000,
        max_line_chars: 10_000,
    };
    let mut group = c.benchmark_group("hocr_500_pages");
    group.throughput(Throughput::Bytes(input.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("baseline_quick_xml_tokenise", |b| {
        b.iter(|| {
            let mut reader = Reader::from_str(black_box(&input));
            let mut events = 0u64;
            loop {
                match reader.read_event().unwrap() {
                    Event::Eof => break,
                    event => {
                        black_box(&event);
                        events += 1;
                    }
                }
            }
            events
        });
    });
    group.bench_function("read_pages", |b| {
        b.iter(|| {
            let mut lines = 0usize;
            let summary = read_pages(Format::Hocr, black_box(&input), &options, |page| {
                lines += page.lines.len();
                black_box(page);
                Ok::<(), Infallible>(())
            })
            .unwrap();
            assert_eq!(summary.pages, 500);
            lines
        });
    });
    group.finish();
}

criterion_group!(benches, read);
criterion_main!(benches);
