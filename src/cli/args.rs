//! The command line, as decisions §4 lays it out.

use std::net::IpAddr;
use std::num::{NonZeroU32, NonZeroU64, NonZeroUsize};
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "catalog",
    version,
    about = "the open, community-edited index of Torah works and media"
)]
pub struct Cli {
    /// The data directory (made when missing).
    #[arg(long, global = true, env = "CATALOG_DATA", default_value = "./data")]
    pub data: PathBuf,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve the HTTP API.
    Serve(ServeArgs),
    /// Manage accounts.
    Account {
        #[command(subcommand)]
        command: AccountCommand,
    },
    /// Manage API tokens.
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
    /// Drop the read models and fold the whole log again.
    Rebuild(RebuildArgs),
    /// Check the hash chain and that the read models match the log.
    Verify,
    /// Copy the whole store and the files beside it into OUT (which must not exist), also while
    /// a server runs on the data directory (it makes the copy).
    Backup(BackupArgs),
    /// Put a backup back as the data directory (which must be missing or empty).
    RestoreBackup(RestoreArgs),
    /// Follow another server's commits into this data directory and serve them (a read replica).
    Mirror(MirrorArgs),
    /// Make an edition: SQLite and JSON Lines dumps at one commit, a signed manifest and
    /// SHA256SUMS, in DATA/editions/TAG.
    Edition(EditionArgs),
}

#[derive(Args, Debug)]
pub struct BackupArgs {
    /// Where the backup goes; made here, never overwritten.
    pub out: PathBuf,
}

#[derive(Args, Debug)]
pub struct RestoreArgs {
    /// A directory `catalog backup` made.
    pub backup: PathBuf,
}

#[derive(Args, Debug)]
pub struct EditionArgs {
    /// YEAR.WEEK or YEAR.WEEK.N (ISO week); the next free tag of this week when left out.
    #[arg(long)]
    pub tag: Option<catalog_snapshots::Tag>,
    /// The Ed25519 signing key (PKCS#8 PEM); DATA/edition-signing.key (made when missing)
    /// when left out.
    #[arg(long, value_name = "FILE")]
    pub signing_key: Option<PathBuf>,
}

/// When `serve` makes editions by itself.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditionSchedule {
    /// The first edition of each ISO week, soon after the server sees the week begin.
    Weekly,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free one.
    #[arg(long, env = "CATALOG_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Load the small sample catalog when the store is empty.
    #[arg(long)]
    pub demo: bool,
    /// Anonymous requests a minute per address (an IPv6 /64 counts as one address); signed-in
    /// callers get twice as many per account.
    #[arg(long, default_value = "600")]
    pub rate_limit_per_minute: NonZeroU32,
    /// Sign-in attempts a minute per handle; an address gets twice as many.
    #[arg(long, default_value = "5")]
    pub login_attempts_per_minute: NonZeroU32,
    /// The address of the one reverse proxy in front of the server: only requests from it have
    /// their client address read from `Forwarded` / `X-Forwarded-For`. Without it those
    /// headers are ignored.
    #[arg(long, value_name = "ADDR")]
    pub trusted_proxy: Option<IpAddr>,
    /// The time limit of one request, in seconds.
    #[arg(long, default_value = "30")]
    pub request_timeout_secs: NonZeroU64,
    /// Requests in progress at once; more wait half a second, then get 429.
    #[arg(long, default_value = "512")]
    pub max_concurrent_requests: NonZeroUsize,
    /// Threads that run requests' store work (the reads, writes and waits that block). Each keeps
    /// its own allocator pages, so this bounds the server's memory under many clients at once;
    /// requests beyond it wait their turn.
    #[arg(long, default_value = "32")]
    pub blocking_threads: NonZeroUsize,
    /// How long a merge waits for the read models to show its commit, in milliseconds; past it
    /// the merge still answers that it merged, with a note. 0 never waits.
    #[arg(long, default_value = "30000")]
    pub merge_wait_ms: u64,
    /// Most items one account's drafts may hold together (stewards: no limit); an account
    /// writing with a `bot:` token may hold ten times as many.
    #[arg(long, default_value = "20000")]
    pub max_draft_items: u64,
    /// Make editions by itself (`weekly`); without it, only `catalog edition` makes them.
    #[arg(long, value_name = "WHEN")]
    pub editions: Option<EditionSchedule>,
    /// The Ed25519 signing key of editions (PKCS#8 PEM); DATA/edition-signing.key (made when
    /// missing) when left out. Its public half is listed at /v1/mirrors.
    #[arg(long, value_name = "FILE")]
    pub signing_key: Option<PathBuf>,
    /// Keep file bytes in an S3-compatible bucket (`s3://bucket/prefix`; credentials, region and
    /// endpoint from the AWS_* environment) instead of DATA/objects.
    #[arg(long, value_name = "URL")]
    pub objects: Option<String>,
    /// Check the captchas of takedowns and family requests sent without an account with this
    /// verifier (the `siteverify` address of hCaptcha, Cloudflare Turnstile or reCAPTCHA); needs
    /// `--captcha-secret-file`. Without one, any non-empty captcha token is taken (development).
    #[arg(long, value_name = "URL", requires = "captcha_secret_file")]
    pub captcha_verify_url: Option<String>,
    /// A file holding the captcha verifier's secret key.
    #[arg(long, value_name = "PATH", requires = "captcha_verify_url")]
    pub captcha_secret_file: Option<PathBuf>,
    /// Let webhooks use `http://` addresses and loopback targets (local tests only: without it
    /// only `https://` addresses that resolve to public addresses are taken).
    #[arg(long)]
    pub allow_http_webhooks: bool,
    /// Multiplies the webhook retry waits (10 s, 1 min, 10 min, 1 h, 6 h) and the probe interval
    /// of failing hooks, so tests run the whole schedule in moments. Not for production.
    #[arg(long, default_value = "1", hide = true)]
    pub webhook_retry_scale: f64,
    #[command(flatten)]
    pub git: GitArgs,
    #[command(flatten)]
    pub oai: OaiArgs,
}

#[derive(Args, Debug)]
pub struct MirrorArgs {
    /// The primary's base address, e.g. `https://catalog.example` (its `/v1/commits` is followed).
    #[arg(long, value_name = "URL")]
    pub from: String,
    /// Address to listen on; port 0 picks a free one.
    #[arg(long, env = "CATALOG_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Commits asked for in one page of the primary's feed (1-100).
    #[arg(long, default_value = "100", value_parser = clap::value_parser!(u16).range(1..=100))]
    pub page_size: u16,
    /// How often to ask the primary for new commits once level with it, in milliseconds.
    #[arg(long, default_value = "1000")]
    pub poll_ms: NonZeroU64,
    /// Anonymous requests a minute per address (as for `serve`).
    #[arg(long, default_value = "600")]
    pub rate_limit_per_minute: NonZeroU32,
    /// The one reverse proxy whose forwarded headers name the client (as for `serve`).
    #[arg(long, value_name = "ADDR")]
    pub trusted_proxy: Option<IpAddr>,
    /// Threads that run requests' store work (as for `serve`): a mirror answers the same reads,
    /// so many clients at once must not grow it by a thread each either.
    #[arg(long, default_value = "32")]
    pub blocking_threads: NonZeroUsize,
    /// A file holding a steward's API token (read scope is enough) for the primary: its feed then
    /// holds the words rights withhold from everyone else, so this log stays the primary's byte
    /// for byte (this server withholds them on its own ways out). Without one, mirroring stops
    /// at the first commit whose words the primary withholds.
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub git: GitArgs,
    #[command(flatten)]
    pub oai: OaiArgs,
}

/// The git mirror's flags, the same on `serve` and `mirror`.
#[derive(Args, Debug)]
pub struct GitArgs {
    /// Keep a git mirror of the catalog's history in DATA/git (one git commit per catalog
    /// commit, written as commits land) and serve it for `git clone` at /git/catalog.git.
    /// Needs the `git` command.
    #[arg(long)]
    pub git_mirror: bool,
    /// Catalog commits one `git fast-import` run writes at most (tests make it small to stop a
    /// server in the middle of an export).
    #[arg(long, default_value = "5000", hide = true)]
    pub git_batch: NonZeroUsize,
}

#[derive(Subcommand, Debug)]
pub enum AccountCommand {
    /// Make an account.
    Add(AccountAddArgs),
    /// Change an account's handle; the old one keeps finding the person (`movedFrom`) and is
    /// never given to anyone else.
    Rename(AccountRenameArgs),
}

#[derive(Args, Debug)]
pub struct AccountRenameArgs {
    /// The handle the person has now.
    pub old: String,
    /// The new handle (never held by anyone else).
    pub new: String,
}

#[derive(Args, Debug)]
pub struct AccountAddArgs {
    /// The handle (lowercase letters, digits, `_` and `-`).
    pub handle: String,
    /// Display name; the handle when left out.
    #[arg(long)]
    pub name: Option<String>,
    #[arg(long)]
    pub steward: bool,
    #[arg(long)]
    pub trusted: bool,
    /// Read a password (for signing in on the site) from the first line of stdin.
    #[arg(long)]
    pub password_stdin: bool,
}

#[derive(Subcommand, Debug)]
pub enum TokenCommand {
    /// Make an API token and print it (alone) on stdout.
    Add(TokenAddArgs),
}

#[derive(Args, Debug)]
pub struct TokenAddArgs {
    pub handle: String,
    /// Comma separated: read, write.
    #[arg(long, default_value = "read")]
    pub scopes: String,
    /// What the token is for; start with `bot:` for a bot.
    #[arg(long, default_value = "cli")]
    pub name: String,
    /// 1-3650; 365 when left out.
    #[arg(long)]
    pub expires_in_days: Option<u32>,
}

#[derive(Args, Debug)]
pub struct RebuildArgs {
    /// Rebuild only this projection (a key-value read model's name, or `search` for the
    /// search index); without it, every read model and the search index.
    #[arg(long)]
    pub projection: Option<String>,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn data_may_follow_the_subcommand() {
        let cli = Cli::try_parse_from([
            "catalog",
            "token",
            "add",
            "ann",
            "--scopes",
            "read,write",
            "--data",
            "/tmp/x",
        ])
        .expect("parses");
        assert_eq!(cli.data, PathBuf::from("/tmp/x"));
        let Command::Token {
            command: TokenCommand::Add(a),
        } = cli.command
        else {
            panic!("token add expected");
        };
        assert_eq!(
            (a.handle.as_str(), a.scopes.as_str()),
            ("ann", "read,write")
        );
    }

    #[test]
    fn backup_and_restore_take_one_directory() {
        let cli = Cli::try_parse_from(["catalog", "backup", "/tmp/b", "--data", "/tmp/d"])
            .expect("parses");
        let Command::Backup(b) = cli.command else {
            panic!("backup expected")
        };
        assert_eq!(b.out, PathBuf::from("/tmp/b"));
        assert!(Cli::try_parse_from(["catalog", "backup"]).is_err());
        let cli = Cli::try_parse_from(["catalog", "restore-backup", "/tmp/b"]).expect("parses");
        assert!(matches!(cli.command, Command::RestoreBackup(_)));
    }

    #[test]
    fn rate_limit_must_be_positive() {
        assert!(Cli::try_parse_from(["catalog", "serve", "--rate-limit-per-minute", "0"]).is_err());
        let cli = Cli::try_parse_from(["catalog", "serve", "--addr", "127.0.0.1:0", "--demo"])
            .expect("parses");
        let Command::Serve(s) = cli.command else {
            panic!("serve expected")
        };
        assert!(s.demo);
        assert_eq!(s.rate_limit_per_minute.get(), 600);
        assert_eq!(s.login_attempts_per_minute.get(), 5);
        assert_eq!(s.trusted_proxy, None);
        assert_eq!(s.request_timeout_secs.get(), 30);
        assert_eq!(s.max_concurrent_requests.get(), 512);
        assert_eq!(s.merge_wait_ms, 30_000);
        assert_eq!(s.blocking_threads.get(), 32);
        assert_eq!(s.max_draft_items, catalog_workflow::MAX_DRAFT_ITEMS);
    }

    #[test]
    fn mirror_needs_a_primary_and_a_page_the_primary_allows() {
        assert!(Cli::try_parse_from(["catalog", "mirror"]).is_err());
        assert!(
            Cli::try_parse_from([
                "catalog",
                "mirror",
                "--from",
                "http://x",
                "--page-size",
                "101"
            ])
            .is_err()
        );
        let cli = Cli::try_parse_from(["catalog", "mirror", "--from", "http://x"]).expect("parses");
        let Command::Mirror(m) = cli.command else {
            panic!("mirror expected")
        };
        assert_eq!(
            (m.from.as_str(), m.page_size, m.poll_ms.get()),
            ("http://x", 100, 1000)
        );
        assert_eq!(m.blocking_threads.get(), 32);
        let flag = [
            "catalog",
            "mirror",
            "--from",
            "http://x",
            "--blocking-threads",
        ];
        assert!(Cli::try_parse_from(flag.iter().chain(&["0"])).is_err());
        let cli = Cli::try_parse_from(flag.iter().chain(&["4"])).expect("parses");
        let Command::Mirror(m) = cli.command else {
            panic!("mirror expected")
        };
        assert_eq!(m.blocking_threads.get(), 4);
    }

    #[test]
    fn edition_tags_are_checked_when_read() {
        assert!(Cli::try_parse_from(["catalog", "edition", "--tag", "2026.54"]).is_err());
        assert!(Cli::try_parse_from(["catalog", "edition", "--tag", "2026.047"]).is_err());
        let cli =
            Cli::try_parse_from(["catalog", "edition", "--tag", "2026.47.1"]).expect("parses");
        let Command::Edition(e) = cli.command else {
            panic!("edition expected")
        };
        assert_eq!(e.tag.map(|t| t.to_string()).as_deref(), Some("2026.47.1"));
        let cli =
            Cli::try_parse_from(["catalog", "serve", "--editions", "weekly"]).expect("parses");
        let Command::Serve(s) = cli.command else {
            panic!("serve expected")
        };
        assert_eq!(s.editions, Some(EditionSchedule::Weekly));
    }

    #[test]
    fn trusted_proxy_must_be_an_address() {
        assert!(Cli::try_parse_from(["catalog", "serve", "--trusted-proxy", "proxy.lan"]).is_err());
        let cli =
            Cli::try_parse_from(["catalog", "serve", "--trusted-proxy", "::1"]).expect("parses");
        let Command::Serve(s) = cli.command else {
            panic!("serve expected")
        };
        assert_eq!(s.trusted_proxy, Some("::1".parse().expect("ip")));
    }
}

/// OAI-PMH, for `serve` and `mirror`.
#[derive(Args, Debug)]
pub struct OaiArgs {
    /// Serve the catalog as an OAI-PMH 2.0 repository at /oai (Dublin Core records, CC0).
    #[arg(long)]
    pub oai: bool,
    /// The address Identify gives harvesters' operators to write to.
    #[arg(
        long,
        value_name = "EMAIL",
        default_value = "catalog@localhost.invalid",
        requires = "oai"
    )]
    pub oai_admin_email: String,
    /// The server's public address (e.g. `https://catalog.example`), which OAI-PMH answers name
    /// as their base URL and in every identifier; the request's Host over http:// when left out.
    #[arg(long, value_name = "URL", requires = "oai")]
    pub oai_public_url: Option<String>,
    /// Records in one page of ListRecords or ListIdentifiers (1-1000).
    #[arg(long, default_value = "200", value_parser = clap::value_parser!(u16).range(1..=1000), requires = "oai")]
    pub oai_page_size: u16,
}

impl OaiArgs {
    /// `state` with OAI-PMH when it was switched on.
    pub fn apply(&self, state: catalog_api::AppState) -> catalog_api::AppState {
        if self.oai {
            state.with_oai(
                self.oai_admin_email.clone(),
                self.oai_public_url.clone(),
                usize::from(self.oai_page_size),
            )
        } else {
            state
        }
    }
}
