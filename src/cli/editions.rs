//! `catalog edition`, and the weekly editions `serve --editions weekly` makes.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context as _;
use catalog_log_core::Log;
use catalog_projector::ReadModels;
use catalog_snapshots::edition::{EditionKey, KEY_FILE, Made, Shelf, Tag};
use time::OffsetDateTime;

use std::io::IsTerminal as _;

use catalog_replay::{Progress, Reporter};

use super::args::EditionArgs;
use super::control::{self, Request};
use super::store;

/// The signing key: the one given, or the data directory's (made on first use).
pub fn signing_key(data: &Path, given: Option<&PathBuf>) -> anyhow::Result<EditionKey> {
    Ok(match given {
        Some(path) => EditionKey::load(path)?,
        None => EditionKey::load_or_create(&data.join(KEY_FILE))?,
    })
}

/// What makes editions inside a running server: the weekly thread and the control socket share
/// it, so only one edition is made at a time (the store's lock does that between processes).
#[derive(Clone)]
pub struct Maker {
    pub read_models: ReadModels,
    pub log: Log,
    pub shelf: Shelf,
    pub key: Arc<EditionKey>,
    pub one_at_a_time: Arc<Mutex<()>>,
}

impl Maker {
    pub fn make(&self, tag: Option<Tag>) -> Result<Made, catalog_snapshots::Error> {
        self.make_at(tag, OffsetDateTime::now_utc())
    }

    /// [`Maker::make`] as if it were `now` (which picks the week of a tag left out).
    fn make_at(
        &self,
        tag: Option<Tag>,
        now: OffsetDateTime,
    ) -> Result<Made, catalog_snapshots::Error> {
        // A panic mid-edition leaves only an `.unfinished-` directory the next maker sweeps.
        let _one = self
            .one_at_a_time
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The server has no terminal: log lines.
        let reporter = progress(&self.read_models, Progress::LogEvery(ITEMS_PER_LINE));
        let made = catalog_snapshots::make_edition(
            &self.read_models,
            &self.log,
            &self.shelf,
            &self.key,
            tag,
            now,
            &mut |n| reporter.commit(n),
        );
        reporter.finish();
        made
    }

    /// The weekly schedule's one step: makes the ISO week of `now`'s first edition when it is
    /// missing and the catalog has commits; answers what it made.
    fn weekly_step(&self, now: OffsetDateTime) -> Result<Option<Made>, catalog_snapshots::Error> {
        let week = Tag::of_week(now.date());
        // An empty catalog has nothing to publish yet.
        if self.shelf.has(week) || self.log.head().0 == 0 {
            return Ok(None);
        }
        self.make_at(Some(week), now).map(Some)
    }
}

pub fn edition(data: &Path, a: EditionArgs) -> anyhow::Result<()> {
    let store = match store::open(data) {
        Ok(store) => store,
        Err(e) if store::is_held(&e) => return edition_by_server(data, a),
        Err(e) => return Err(e),
    };
    let key = signing_key(data, a.signing_key.as_ref())?;
    let shelf = Shelf::in_data_dir(data);
    if let Some(tag) = a.tag
        && shelf.has(tag)
    {
        anyhow::bail!("edition {tag} exists already: editions are immutable");
    }
    let log = Log::open(&store).context("cannot open the commit log")?;
    // Fold what the log holds beyond the read models first, so the edition is of the head.
    let projector =
        catalog_projector::Projector::start(&store, &log).context("cannot start the projector")?;
    projector
        .wait_applied(log.head(), Duration::from_secs(3600))
        .context("the read models did not reach the log's head")?;
    let read_models = ReadModels::new(&store);
    let reporter = progress(&read_models, Progress::Auto);
    let made = catalog_snapshots::make_edition(
        &read_models,
        &log,
        &shelf,
        &key,
        a.tag,
        OffsetDateTime::now_utc(),
        &mut |n| reporter.commit(n),
    );
    reporter.finish();
    let made = made?;
    report(
        &made.tag.to_string(),
        made.manifest.commit_seq,
        made.items,
        &made.dir,
    );
    Ok(())
}

/// The edition made by the server holding the store, asked through its control socket, and
/// signed with the key it serves at `/v1/mirrors`.
fn edition_by_server(data: &Path, a: EditionArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        a.signing_key.is_none(),
        "a running server holds {} and signs editions with its own key: stop it to sign with \
         --signing-key",
        data.display()
    );
    eprintln!(
        "a server holds {}; asking it for the edition",
        data.display()
    );
    let answer = control::ask(
        data,
        &Request::Edition {
            tag: a.tag.map(|t| t.to_string()),
        },
    )?;
    match (answer.ok, answer.edition) {
        (true, Some(made)) => {
            report(&made.tag, made.commit_seq, made.items, &made.dir);
            Ok(())
        }
        _ => anyhow::bail!(
            "the server refused: {}",
            answer.error.unwrap_or_else(|| "no reason given".into())
        ),
    }
}

/// A log line every so many items when no terminal shows a bar.
const ITEMS_PER_LINE: u64 = 100_000;

/// How an edition shows its progress: the live items the read models count are its total (a
/// count that cannot be read only costs the bar its length).
fn progress(read_models: &ReadModels, how: Progress) -> Reporter {
    let total = read_models
        .counts()
        .map(|counts| counts.values().sum())
        .unwrap_or(0);
    let how = match how {
        Progress::Auto if !std::io::stderr().is_terminal() => Progress::LogEvery(ITEMS_PER_LINE),
        other => other,
    };
    Reporter::counting(how, "edition", "items", total)
}

fn report(tag: &str, commit: u64, items: u64, dir: &Path) {
    eprintln!(
        "edition {tag} made at commit {commit} ({items} items) in {}",
        dir.display()
    );
    println!("{tag}");
}

/// How often the server looks whether this week's edition is made.
const WEEKLY_CHECK: Duration = Duration::from_secs(600);

/// Makes this ISO week's first edition when it is missing, now and every [`WEEKLY_CHECK`], on a
/// thread of its own (a dump of a large catalog takes a while; requests never wait for it).
pub fn spawn_weekly(maker: Maker) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name("editions".into())
        .spawn(move || {
            loop {
                match maker.weekly_step(OffsetDateTime::now_utc()) {
                    Ok(Some(made)) => tracing::info!(tag = %made.tag, commit = made.manifest.commit_seq, "weekly edition made"),
                    Ok(None) => {}
                    Err(e) => tracing::error!(error = %e, "weekly edition failed; trying again later"),
                }
                std::thread::sleep(WEEKLY_CHECK);
            }
        })
        .context("cannot start the editions thread")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use catalog_schemas::{Id, ItemType};
    use time::macros::datetime;

    use super::*;

    fn topic(log: &Log, slug: &str) -> catalog_log_core::Seq {
        log.append(catalog_log_core::NewCommit {
            message: "add".into(),
            merged_by: "steward".into(),
            author: "steward".into(),
            suggestion: None,
            changes: vec![catalog_log_core::NewChange {
                id: Id::random(),
                ty: ItemType::Topic,
                path: Some(format!("/topics/{slug}")),
                data: Some(serde_json::json!({ "name": { "he": "נושא" }, "slug": slug })),
                merged_into: None,
                expect: catalog_log_core::Expect::Absent,
            }],
        })
        .expect("append")
        .seq
    }

    #[test]
    fn the_weekly_step_makes_each_weeks_first_edition_once() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let services = store::services(dir.path()).expect("services");
        let key = EditionKey::load_or_create(&dir.path().join(KEY_FILE)).expect("a key");
        let maker = Maker {
            read_models: services.read_models.clone(),
            log: services.log.clone(),
            shelf: Shelf::in_data_dir(dir.path()),
            key: Arc::new(key),
            one_at_a_time: Arc::default(),
        };
        let monday = datetime!(2026-11-23 09:00 UTC);
        assert!(
            maker.weekly_step(monday).unwrap().is_none(),
            "nothing to publish yet"
        );

        let seq = topic(&services.log, "first");
        services
            .projector
            .wait_applied(seq, Duration::from_secs(30))
            .unwrap();
        let made = maker
            .weekly_step(monday)
            .unwrap()
            .expect("this week's edition");
        assert_eq!(made.tag.to_string(), "2026.48");
        assert_eq!(made.manifest.commit_seq, seq.0);
        // Later that week (ten minutes on, or on Sunday), nothing more.
        let sunday = datetime!(2026-11-29 23:59 UTC);
        assert!(
            maker
                .weekly_step(monday + Duration::from_secs(600))
                .unwrap()
                .is_none()
        );
        assert!(maker.weekly_step(sunday).unwrap().is_none());

        let seq = topic(&services.log, "second");
        services
            .projector
            .wait_applied(seq, Duration::from_secs(30))
            .unwrap();
        let next = maker
            .weekly_step(sunday + Duration::from_secs(60))
            .unwrap()
            .expect("next week's edition");
        assert_eq!(next.tag.to_string(), "2026.49");
        assert_eq!(next.manifest.commit_seq, seq.0);
    }
}
