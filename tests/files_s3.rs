//! `catalog serve --objects s3://bucket/prefix` against a real S3-compatible server (moto in
//! server mode, from PyPI): an upload lands in the bucket under the prefix, is served back by
//! range, and its page images are made from a copy downloaded from the bucket.

mod common;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::DataDir;
use common::tools::{debian, python_with, run};

struct Moto(Child);

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn uploads_are_kept_in_an_s3_bucket_and_served_from_it() {
    // The virtualenv `blobs/tests/s3.rs` makes too (one pip install of moto a machine).
    let python = python_with("catalog-moto", &["'moto[server]'"], "moto");
    let bin = std::path::Path::new(&python).with_file_name("moto_server");
    let port = free_port();
    let _moto = Moto(
        Command::new(&bin)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto_server"),
    );
    let endpoint = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(r) = http.put(format!("{endpoint}/catalog-files")).send().await
            && r.status().is_success()
        {
            break;
        }
        assert!(Instant::now() < deadline, "moto did not answer");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    let dir = DataDir::new();
    let token = dir.person("steward-s3", true);
    let server = dir.start_env(
        &["--demo", "--objects", "s3://catalog-files/catalog/objects"],
        &[
            ("AWS_ENDPOINT_URL", endpoint.as_str()),
            ("AWS_ALLOW_HTTP", "true"),
            ("AWS_ACCESS_KEY_ID", "testing"),
            ("AWS_SECRET_ACCESS_KEY", "testing"),
            ("AWS_REGION", "us-east-1"),
        ],
    );
    debian(
        &["poppler-utils", "pango1.0-tools", "fonts-dejavu-core"],
        &["pdfunite", "pango-view"],
    );
    let tmp = tempfile::tempdir().unwrap();
    let pdf = tmp.path().join("s3.pdf");
    run(
        "pango-view",
        &[
            "--no-display",
            "--text=סריקה בדלי",
            "--output",
            pdf.to_str().unwrap(),
        ],
        None,
    );
    let bytes = std::fs::read(&pdf).unwrap();

    let steward = server.with_token(&token);
    let answer = steward
        .post_raw(
            "/v1/uploads?what=document&title=S3&rights=mine",
            "application/pdf",
            bytes.clone(),
        )
        .await
        .expect(201)
        .json();
    let sha = answer["file"]["sha256"].as_str().unwrap().to_owned();

    // The bytes are in the bucket, under the prefix, named by their hash.
    let listing = http
        .get(format!(
            "{endpoint}/catalog-files?list-type=2&prefix=catalog/objects/files/"
        ))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        listing.contains(&format!("catalog/objects/files/{sha}")),
        "{listing}"
    );
    assert!(
        !std::fs::read_dir(dir.path())
            .unwrap()
            .any(|e| e.unwrap().file_name() == "objects")
    );

    let anon = server.anon();
    assert_eq!(
        anon.get(&format!("/objects/{sha}")).await.expect(200).body,
        bytes
    );
    let part = anon
        .get_with(&format!("/objects/{sha}"), &[("range", "bytes=1-3")])
        .await
        .expect(206);
    assert_eq!(part.body, &bytes[1..4]);
    let scan = answer["items"][0]["id"].as_str().unwrap().to_owned();
    common::eventually(
        "page images from the bucket",
        Duration::from_secs(60),
        || {
            let anon = anon.clone();
            let scan = scan.clone();
            async move {
                (anon.get(&format!("/v1/scans/{scan}/pages")).await.status == 200).then_some(())
            }
        },
    )
    .await;
    anon.get(&format!("/objects/{sha}/pages/1.jpg"))
        .await
        .expect(200);
}
