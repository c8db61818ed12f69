//! The command line, as decisions §4 lays it out.

use std::num::NonZeroU32;
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
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free one.
    #[arg(long, env = "CATALOG_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Load the small sample catalog when the store is empty.
    #[arg(long)]
    pub demo: bool,
    /// Anonymous requests a minute per address; tokens get twice as many.
    #[arg(long, default_value = "600")]
    pub rate_limit_per_minute: NonZeroU32,
}

#[derive(Subcommand, Debug)]
pub enum AccountCommand {
    /// Make an account.
    Add(AccountAddArgs),
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
    fn rate_limit_must_be_positive() {
        assert!(Cli::try_parse_from(["catalog", "serve", "--rate-limit-per-minute", "0"]).is_err());
        let cli = Cli::try_parse_from(["catalog", "serve", "--addr", "127.0.0.1:0", "--demo"])
            .expect("parses");
        let Command::Serve(s) = cli.command else {
            panic!("serve expected")
        };
        assert!(s.demo);
        assert_eq!(s.rate_limit_per_minute.get(), 600);
    }
}
